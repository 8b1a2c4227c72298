// The floor of the HTTP benchmark: a bare node:http server that does what any decision endpoint
// must do at the least — read the body, JSON.parse it, answer a fixed JSON of a decision's size —
// and nothing else (no token, no schema, no policy, no log).
// `node scripts/bench/floor-server.mjs <port>`; GET answers 200 (readiness). Not a benchmark of its own.
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);
// The shape and size of a pdp answer with one modifier.
const reply = JSON.stringify({
  id: { identifier: 'urn:decision:01a20115-fdc6-714e-8096-c0efb19276e9' },
  eventAllowed: true,
  modifiers: [
    {
      name: 'user',
      expression: '$.name.firstName',
      engine: [{ method: 'append', parameters: [{ name: 'suffix', value: { value: ' (masked)', type: 'java.lang.String', isComplex: false } }] }],
    },
  ],
  delay: 0,
});
const replyLength = Buffer.byteLength(reply);

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 });
    res.end('ok');
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'Content-Length': 0 });
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': replyLength, 'Policy-Revision': '1' });
    res.end(reply);
  });
});
server.listen(port, '127.0.0.1');
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
