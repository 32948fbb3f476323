// Used by webhook_backlog.sh: a webhook receiver on loopback that holds every delivery until it
// gets SIGUSR1, then answers each at once with 200. GET / answers what it was sent:
// {posts, events} (requests, and distinct X-Turnkey-Event-Id values).
//   node tests/bench/webhook_receiver.mjs PORT
import { createServer } from "node:http";

let released = false;
let held = [];
let posts = 0;
const events = new Set();
const server = createServer((req, res) => {
  if (req.method === "GET") return res.end(JSON.stringify({ posts, events: events.size }));
  posts++;
  events.add(req.headers["x-turnkey-event-id"]);
  req.resume();
  req.on("end", () => (released ? res.writeHead(200).end() : held.push(res)));
});
process.on("SIGUSR1", () => {
  released = true;
  for (const res of held) res.writeHead(200).end();
  held = [];
});
server.listen(Number(process.argv[2]), "127.0.0.1");
