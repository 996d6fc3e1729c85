// A slow-sender load generator for the webhook receiver tests, run as its own process (so its
// sockets and buffers are not counted against the receiver, and its file-descriptor limit can be
// raised): opens N connections to PORT, sends each the headers of a POST declaring BODY bytes and
// then as much of the body as the receiver takes, short of the last byte, and holds them.
//
//   node slow-clients.mjs PORT N BODY [headers] [OPTIONS_JSON]
//
// With "headers", each connection sends only part of its headers and stalls there.
//
// OPTIONS_JSON (all optional):
//   addresses  local source addresses, used in turn (127.0.0.2, 127.0.0.3 … are loopback on Linux);
//              N connections are opened from each
//   signature  the signature header line sent with each request (default: one of the right shape
//              for Trello's X-Trello-Webhook, so the receiver has to read the body to refuse it)
//   reconnect  milliseconds after which a connection the receiver closed is opened again (from the
//              same address), for as long as the process runs
//
// Prints one JSON line {"ready":…} once every first connection is settled (refused, closed, or
// stalled with the rest of its body unsent). Without `reconnect`, then one line {"closed":…} once
// the receiver has closed all of them (status counts from whatever answers arrived); with it, a
// line {"round":…} each time as many reconnections as there are connections have been made.
// Writes only while a socket is writable, so this process never buffers the bodies itself.
import { connect } from "node:net";

const [port, perAddress, bodyBytes] = process.argv.slice(2, 5).map(Number);
const headersOnly = process.argv[5] === "headers";
const options = JSON.parse(process.argv[6] || "{}");
const addresses = options.addresses ?? [undefined];
const count = perAddress * addresses.length;
const signature = options.signature ?? `x-trello-webhook: ${"A".repeat(27)}=`;
const chunk = Buffer.alloc(16 * 1024, 0x61);
const statuses = {};
let settled = 0;
let closed = 0;
let reconnects = 0;
let connectErrors = 0;
let readyPrinted = false;
let open = 0;

function settle(state) {
  if (state.settled) return;
  state.settled = true;
  settled++;
  if (!readyPrinted && settled === count) {
    readyPrinted = true;
    process.stdout.write(`${JSON.stringify({ ready: { settled, connectErrors, open } })}\n`);
  }
}

function start(i, localAddress) {
  const state = { settled: false, sent: 0, answer: "" };
  const socket = connect({ port, host: "127.0.0.1", ...(localAddress ? { localAddress } : {}) });
  open++;
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
    const head = `POST /hook/${i} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${signature}\r\n`;
    socket.write(`${head}content-length: ${bodyBytes}\r\n\r\n`);
    pump();
  });
  socket.on("drain", pump);
  socket.on("data", (d) => (state.answer += d.toString("latin1")));
  socket.on("error", () => {
    if (socket.connecting) connectErrors++;
  });
  socket.on("close", () => {
    clearTimeout(stall);
    open--;
    const m = /^HTTP\/1\.1 (\d{3})/.exec(state.answer);
    const key = m ? m[1] : "none";
    statuses[key] = (statuses[key] ?? 0) + 1;
    settle(state);
    closed++;
    if (options.reconnect !== undefined) {
      setTimeout(() => {
        reconnects++;
        if (reconnects % count === 0)
          process.stdout.write(`${JSON.stringify({ round: { reconnects, open, statuses } })}\n`);
        start(i, localAddress);
      }, options.reconnect);
    } else if (closed === count) {
      process.stdout.write(`${JSON.stringify({ closed: { statuses } })}\n`);
    }
  });
}

// Open in batches so the listen backlog is not the limit being measured.
let next = 0;
function batch() {
  for (let k = 0; k < 200 && next < count; k++, next++) start(next, addresses[next % addresses.length]);
  if (next < count) setTimeout(batch, 10);
}
batch();
process.on("SIGTERM", () => process.exit(0));
