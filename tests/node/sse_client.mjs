// A Server-Sent Events client (Node's fetch, reading the stream as it comes) driven by a C++ test
// through lines (support NodeProcess), printing the same events as ws_client.mjs: {event:"open",
// status, type} (or {event:"refused", status, body}), {event:"message", data} per event,
// {event:"end"} when the server ends the stream. Arguments: the URL and a JSON object of request
// headers. Exits when stdin closes.
import readline from 'node:readline';

const [url, headersJson] = process.argv.slice(2);
const print = (event) => process.stdout.write(JSON.stringify(event) + '\n');
process.stdout.on('error', () => process.exit(0));
const controller = new AbortController();
readline.createInterface({ input: process.stdin }).on('close', () => {
  controller.abort();
  process.exit(0);
});

const headers = { Accept: 'text/event-stream', ...JSON.parse(headersJson || '{}') };
try {
  const response = await fetch(url, { headers, signal: controller.signal });
  if (response.status !== 200) {
    print({ event: 'refused', status: response.status, body: await response.text() });
  } else {
    print({ event: 'open', status: response.status, type: response.headers.get('content-type') });
    const decoder = new TextDecoder();
    let pending = '';
    for await (const chunk of response.body) {
      pending += decoder.decode(chunk, { stream: true });
      let end;
      while ((end = pending.indexOf('\n\n')) >= 0) {
        const block = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const data = block.split('\n').filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6)).join('\n');
        print({ event: 'message', data });
      }
    }
    print({ event: 'end' });
  }
} catch (error) {
  if (!controller.signal.aborted) print({ event: 'error', message: String(error.message) });
}
