// A stand-in for GitHub's OAuth and REST endpoints (what cairn's github provider calls), for
// the GitHub-style sign-in tests; started by tests/support/node_process.cpp.
//
// Usage: node github_standin.js <client-id> <client-secret> <users-json>
// users-json: [{"login","id","name","email","verified"}]. The authorize page signs in the user
// named by login_hint at once and redirects back with a code; the token endpoint checks the
// client, the redirect URI and the PKCE verifier (S256), and answers as GitHub does (200 with
// {"error"} for a bad code). Prints the port; exits when stdin closes.
'use strict';

const crypto = require('node:crypto');
const http = require('node:http');

const [clientId, clientSecret, usersJson] = process.argv.slice(2);
const users = JSON.parse(usersJson || '[]');
const codes = new Map();   // code → {user, challenge, redirectUri}
const tokens = new Map();  // access token → user

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req) {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => resolve(body));
  });
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
    const q = url.searchParams;
    const user = users.find((u) => u.login === q.get('login_hint'));
    if (q.get('client_id') !== clientId || !user || q.get('code_challenge_method') !== 'S256') {
      return json(res, 400, { error: 'bad authorize request' });
    }
    const code = crypto.randomBytes(16).toString('hex');
    codes.set(code, { user, challenge: q.get('code_challenge'), redirectUri: q.get('redirect_uri') });
    const back = new URL(q.get('redirect_uri'));
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.get('state'));
    res.writeHead(302, { location: back.toString() });
    return res.end();
  }
  if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
    const form = new URLSearchParams(await readBody(req));
    const grant = codes.get(form.get('code'));
    codes.delete(form.get('code'));
    const verifier = form.get('code_verifier') || '';
    const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret ||
        !grant || grant.challenge !== challenge || grant.redirectUri !== form.get('redirect_uri')) {
      return json(res, 200, { error: 'bad_verification_code' });
    }
    const token = crypto.randomBytes(16).toString('hex');
    tokens.set(token, grant.user);
    return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
  }
  const auth = req.headers.authorization || '';
  const user = tokens.get(auth.replace(/^Bearer /, ''));
  if (!user) return json(res, 401, { message: 'Bad credentials' });
  if (req.method === 'GET' && url.pathname === '/user') {
    return json(res, 200, { id: user.id, login: user.login, name: user.name, avatar_url: null });
  }
  if (req.method === 'GET' && url.pathname === '/user/emails') {
    return json(res, 200, [
      { email: `${user.login}@users.noreply.github.test`, primary: false, verified: true },
      { email: user.email, primary: true, verified: user.verified },
    ]);
  }
  return json(res, 404, { message: 'Not Found' });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
});
