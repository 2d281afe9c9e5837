// @ts-check
// How long a game takes, as /api/game-length answers it (docs/protocol.md, "Analysis"): the
// query, the numbers a page shows (throws turned into minutes at the server's pace — the pace is
// the analysis layer's, never a constant of ours), and asking only after a pause with the newest
// answer kept (the analysis routes are rate-limited per address). The 规则与概率 page and the
// event form both use it.

/**
 * @typedef {{mean: number, p5: number, p50: number, p90: number, p95: number, p99: number}} Spread
 * @typedef {{minutes: number, seconds_per_throw: number, throws: number, runs_past: number}} TimeLimit
 * @typedef {{
 *   players: number,
 *   exact: {throws_mean: number, rounds_mean: number} | null,
 *   simulation: {games: number, throws: Spread, rounds: Spread},
 *   seconds_per_throw: number,
 *   time_limit?: TimeLimit,
 * }} GameLength
 * @typedef {{players: number, rules?: object | string | null, table?: string | null,
 *   minutes?: number | null}} LengthQuery
 */

/** A share of games this large or more "likely" runs past a time limit: the median does. */
export const LIKELY = 0.5;

/** `/api/game-length?...` for a table of `players` under `rules` (a preset id or a rule
 * object) or a `table`'s rules, with a time limit of `minutes` when given.
 * @param {LengthQuery} query
 */
export function lengthPath({ players, rules = null, table = null, minutes = null }) {
  const query = new URLSearchParams({ players: String(players) });
  if (table) query.set("table", table);
  else if (rules !== null)
    query.set("rules", typeof rules === "string" ? rules : JSON.stringify(rules));
  if (minutes) query.set("minutes", String(minutes));
  return `/api/game-length?${query}`;
}

/**
 * Minutes `throws` take at `seconds` a throw.
 * @param {number} throws
 * @param {number} seconds
 */
export function throwMinutes(throws, seconds) {
  return (throws * seconds) / 60;
}

/**
 * What one table's game comes to: the median and the middle 90 % of throws, the same in minutes
 * at the server's pace, and what the time limit asked about does.
 * @param {GameLength} data
 */
export function lengthFacts(data) {
  const throws = data.simulation.throws;
  const seconds = data.seconds_per_throw;
  const limit = data.time_limit || null;
  return {
    seconds,
    throws: { p50: throws.p50, p5: throws.p5, p95: throws.p95 },
    minutes: {
      p50: throwMinutes(throws.p50, seconds),
      p5: throwMinutes(throws.p5, seconds),
      p95: throwMinutes(throws.p95, seconds),
    },
    limit: limit && {
      minutes: limit.minutes,
      throws: limit.throws,
      runsPast: limit.runs_past,
      likely: limit.runs_past >= LIKELY,
    },
  };
}

/**
 * Ask after `delay` ms of quiet; an answer to an older question is dropped.
 * `ask(x)` schedules `run(x)`; `onAnswer(result, x)` and `onError(err, x)` see only the newest.
 */
export class LatestAfterPause {
  /**
   * @param {number} delay
   * @param {(x: any) => Promise<any>} run
   * @param {{onAnswer: (result: any, x: any) => void, onError?: (err: any, x: any) => void}} handlers
   */
  constructor(delay, run, { onAnswer, onError = () => {} }) {
    this.delay = delay;
    this.run = run;
    this.onAnswer = onAnswer;
    this.onError = onError;
    this.ticket = 0;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
  }

  /**
   * Ask about `x` once nothing else was asked for `delay` ms (`now`: at once).
   * @param {string | number} x
   */
  ask(x, { now = false } = {}) {
    if (this.timer !== null) clearTimeout(this.timer);
    const ticket = ++this.ticket;
    const go = async () => {
      this.timer = null;
      try {
        const result = await this.run(x);
        if (ticket === this.ticket) this.onAnswer(result, x);
      } catch (err) {
        if (ticket === this.ticket) this.onError(err, x);
      }
    };
    if (now) go();
    else this.timer = setTimeout(go, this.delay);
  }

  /** Forget the question asked, if any (its answer will be dropped). */
  cancel() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.ticket++;
  }
}
