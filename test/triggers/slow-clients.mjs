// A slow-body load generator for the webhook receiver tests, run as its own process (so its
// sockets and buffers are not counted against the receiver, and its file-descriptor limit can be
// raised): opens N connections to PORT, sends each the headers of a POST declaring BODY bytes and
// then as much of the body as the receiver takes, short of the last byte, and holds them.
//
//   node slow-clients.mjs PORT N BODY [headers]
//
// With "headers", each connection sends only part of its headers and stalls there.
//
// Prints one JSON line {"ready":…} once every connection is settled (refused, closed, or stalled
// with the rest of its body unsent), then one line {"closed":…} once the receiver has closed all
// of them (status counts from whatever answers arrived). Writes only while a socket is writable,
// so this process never buffers the bodies itself.
import { connect } from "node:net";

const [port, count, bodyBytes] = process.argv.slice(2, 5).map(Number);
const headersOnly = process.argv[5] === "headers";
const chunk = Buffer.alloc(16 * 1024, 0x61);
const statuses = {};
let settled = 0;
let closed = 0;
let connectErrors = 0;
let readyPrinted = false;
const sockets = [];

function settle(state) {
  if (state.settled) return;
  state.settled = true;
  settled++;
  if (!readyPrinted && settled === count) {
    readyPrinted = true;
    process.stdout.write(`${JSON.stringify({ ready: { settled, connectErrors, open: sockets.filter((s) => !s.destroyed).length } })}\n`);
  }
}

function open(i) {
  const state = { settled: false, sent: 0, answer: "" };
  const socket = connect({ port, host: "127.0.0.1" });
  sockets.push(socket);
  let stall;
  const pump = () => {
    clearTimeout(stall);
    while (state.sent < bodyBytes - 1) {
      const n = Math.min(chunk.length, bodyBytes - 1 - state.sent);
      state.sent += n;
      if (!socket.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
        // The receiver stopped reading: the body stays unfinished from here.
        stall = setTimeout(() => settle(state), 300);
        return;
      }
    }
    settle(state); // everything but the last byte is out
  };
  socket.on("connect", () => {
    if (headersOnly) {
      socket.write(`POST /hook/${i} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-le`);
      return settle(state);
    }
    socket.write(`POST /hook/${i} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\nx-trello-webhook: slow\r\ncontent-length: ${bodyBytes}\r\n\r\n`);
    pump();
  });
  socket.on("drain", pump);
  socket.on("data", (d) => (state.answer += d.toString("latin1")));
  socket.on("error", (e) => {
    if (!socket.connecting) return;
    connectErrors++;
    void e;
  });
  socket.on("close", () => {
    clearTimeout(stall);
    const m = /^HTTP\/1\.1 (\d{3})/.exec(state.answer);
    const key = m ? m[1] : "none";
    statuses[key] = (statuses[key] ?? 0) + 1;
    settle(state);
    closed++;
    if (closed === count) process.stdout.write(`${JSON.stringify({ closed: { statuses } })}\n`);
  });
}

// Open in batches so the listen backlog is not the limit being measured.
let next = 0;
function batch() {
  for (let k = 0; k < 200 && next < count; k++) open(next++);
  if (next < count) setTimeout(batch, 10);
}
batch();
process.on("SIGTERM", () => process.exit(0));
