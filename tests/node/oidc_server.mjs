// A real OpenID Connect provider for the OAuth sign-in tests (oidc-provider, with its
// development login and consent pages); started by tests/support/node_process.cpp.
//
// Usage: node oidc_server.mjs <client-id> <client-secret> <account-id> <email> <name> [userinfo]
// Listens on a free 127.0.0.1 port and prints it; then reads the client's redirect URI from a
// line on stdin (the app under test learns its own port only after starting), builds the
// provider with one client and one user, and prints "ready". Exits when stdin closes.
// PKCE (S256) is required; ID tokens are RS256 and carry the email claims, or with `userinfo`
// only `sub` (the claims then come from the userinfo endpoint, oidc-provider's default).
import * as crypto from 'node:crypto';
import * as http from 'node:http';
import * as readline from 'node:readline';

import Provider from 'oidc-provider';

const [clientId, clientSecret, accountId, email, name, mode] = process.argv.slice(2);
if (!name) {
  console.error('usage: node oidc_server.mjs <client-id> <client-secret> <account-id> <email> <name>');
  process.exit(2);
}

function signingKey(type, options, kid) {
  const { privateKey } = crypto.generateKeyPairSync(type, options);
  return { ...privateKey.export({ format: 'jwk' }), kid, use: 'sig' };
}

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`${port}\n`);
  const lines = readline.createInterface({ input: process.stdin });
  let provider = null;
  lines.on('line', (redirectUri) => {
    if (provider) return;
    provider = new Provider(`http://127.0.0.1:${port}`, {
      clients: [{
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri.trim()],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      }],
      // One user: any other login finds no account.
      async findAccount(ctx, id) {
        if (id !== accountId) return undefined;
        return {
          accountId: id,
          async claims() {
            return { sub: id, email, email_verified: true, name };
          },
        };
      },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      // The email claims in the ID token, as Google sends them; or only from userinfo.
      conformIdTokenClaims: mode === 'userinfo',
      pkce: { methods: ['S256'], required: () => true },
      features: { devInteractions: { enabled: true } },
      cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
      jwks: {
        keys: [
          signingKey('rsa', { modulusLength: 2048 }, 'rsa-test'),
          signingKey('ec', { namedCurve: 'P-256' }, 'ec-test'),
        ],
      },
    });
    server.on('request', provider.callback());
    process.stdout.write('ready\n');
  });
  lines.on('close', () => process.exit(0));
});
