// A WebSocket client (the npm package ws) driven by a C++ test through lines (support
// NodeProcess). Arguments: the URL and a JSON object of request headers. Prints one JSON line per
// event: {event:"open"}, {event:"message", data}, {event:"close", code, reason},
// {event:"refused", status, headers, body} (the server answered without upgrading),
// {event:"error", message}. Reads commands: "send <text>", "pause" / "resume" (stop and restart
// reading the socket: a slow consumer), "close". Exits when stdin closes.
import WebSocket from 'ws';
import readline from 'node:readline';

const [url, headersJson] = process.argv.slice(2);
const print = (event) => process.stdout.write(JSON.stringify(event) + '\n');

const socket = new WebSocket(url, { headers: JSON.parse(headersJson || '{}') });
socket.on('open', () => print({ event: 'open' }));
socket.on('message', (data) => print({ event: 'message', data: data.toString() }));
socket.on('close', (code, reason) => print({ event: 'close', code, reason: reason.toString() }));
socket.on('error', (error) => print({ event: 'error', message: String(error.message) }));
socket.on('unexpected-response', (request, response) => {
  let body = '';
  response.on('data', (chunk) => { body += chunk; });
  response.on('end', () => print({ event: 'refused', status: response.statusCode,
                                   headers: response.headers, body }));
});

const input = readline.createInterface({ input: process.stdin });
input.on('line', (line) => {
  if (line.startsWith('send ')) socket.send(line.slice(5));
  else if (line === 'pause') socket.pause();
  else if (line === 'resume') socket.resume();
  else if (line === 'close') socket.close(1000, 'bye');
});
input.on('close', () => { socket.terminate(); process.exit(0); });
