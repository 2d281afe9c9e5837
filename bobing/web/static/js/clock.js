// @ts-check
// The server's clock as this device sees it: deadlines are the server's, so a countdown is
// computed from the server time (welcome and pong frames carry `server_time`), never from the
// phone's own clock, which may be minutes off.

const MAX_SAMPLES = 8;
const UNKNOWN_RTT_MS = 2000;

/**
 * @type {any[]}
 */
let samples = [];
let offset = 0;

/**
 * Note a `server_time` (ISO) received at `receivedAt` for a request sent at `sentAt` (ms).
 * @param {string} serverIso
 * @param {number | null} [sentAt]
 * @param {number} [receivedAt]
 */
export function noteServerTime(serverIso, sentAt = null, receivedAt = Date.now()) {
  const server = Date.parse(serverIso);
  if (!Number.isFinite(server)) return;
  const rtt = sentAt === null ? UNKNOWN_RTT_MS : Math.max(0, receivedAt - sentAt);
  const local = sentAt === null ? receivedAt : (sentAt + receivedAt) / 2;
  samples.push({ rtt, offset: server - local });
  if (samples.length > MAX_SAMPLES) samples = samples.slice(-MAX_SAMPLES);
  // the quickest round trip says most precisely what the server's clock read
  offset = samples.reduce((best, s) => (s.rtt < best.rtt ? s : best)).offset;
}

/** Now, on the server's clock (ms since the epoch). */
export function serverNow() {
  return Date.now() + offset;
}

/** How far this device's clock is behind the server's (ms; for the curious and the tests). */
export function serverOffset() {
  return offset;
}
