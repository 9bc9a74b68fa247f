// WebSocket clients (the npm package ws) driven by a C++ test through lines (support
// NodeProcess). Arguments: the URL, a JSON object of request headers, and how many sockets to
// open to it (default 1). Prints one JSON line per event, each with the socket's index `i`:
// {event:"open"}, {event:"message", data}, {event:"close", code, reason},
// {event:"refused", status, headers, body} (the server answered without upgrading),
// {event:"error", message}. Reads commands for every socket: "send <text>", "pause" / "resume"
// (stop and restart reading: a slow consumer), "close". Exits when stdin closes.
import WebSocket from 'ws';
import readline from 'node:readline';

const [url, headersJson, countText] = process.argv.slice(2);
const print = (event) => process.stdout.write(JSON.stringify(event) + '\n');
// The test stopped reading (it is done): leave quietly.
process.stdout.on('error', () => process.exit(0));

const sockets = [];
for (let i = 0; i < Number(countText || 1); i++) {
  const socket = new WebSocket(url, { headers: JSON.parse(headersJson || '{}') });
  socket.on('open', () => print({ i, event: 'open' }));
  socket.on('message', (data) => print({ i, event: 'message', data: data.toString() }));
  socket.on('close', (code, reason) => print({ i, event: 'close', code, reason: reason.toString() }));
  socket.on('error', (error) => print({ i, event: 'error', message: String(error.message) }));
  socket.on('unexpected-response', (request, response) => {
    let body = '';
    response.on('data', (chunk) => { body += chunk; });
    response.on('end', () => print({ i, event: 'refused', status: response.statusCode,
                                     headers: response.headers, body }));
  });
  sockets.push(socket);
}

const input = readline.createInterface({ input: process.stdin });
input.on('line', (line) => {
  for (const socket of sockets) {
    if (socket.readyState !== WebSocket.OPEN) continue;
    if (line.startsWith('send ')) socket.send(line.slice(5));
    else if (line === 'pause') socket.pause();
    else if (line === 'resume') socket.resume();
    else if (line === 'close') socket.close(1000, 'bye');
  }
});
input.on('close', () => {
  for (const socket of sockets) socket.terminate();
  process.exit(0);
});
