// The games played on this phone (localStorage), and those of this table: a rematch chain
// (the table, the one it was a rematch of, and so on) counts as one table of people.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { STATUS } from "./protocol.js";
import { diceRow } from "./dice.js";
import { classify, handName } from "./rulebook.js";
import { cakes } from "./award.js";
import { loadTable } from "./device_store.js";
import { isRanked, rankingRows } from "./ranked.js";

const KEY = "bobing.history";
const MAX_GAMES = 60;

export function games() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/**
 * Remember a finished game (once per table; a later state of it replaces the entry).
 * @param {import("./session.js").TableSession & Record<string, any>} session
 */
export function recordGame(session) {
  const st = session.state;
  if (!st || st.status !== STATUS.OVER || !st.result) return null;
  const z = st.result.zhuangyuan;
  const holdings = st.result.holdings;
  // a ranked table (the 状元王中王 too) has no 状元: its line names who took the top prize
  const ranking = isRanked(st) ? rankingRows(st) : null;
  const top = ranking && ranking[0] && ranking[0].unit ? ranking[0] : null;
  const entry = {
    code: st.code,
    name: st.name,
    mode: st.mode,
    at: st.created_at,
    players: (st.players || []).map((/** @type {Record<string, any>} */ p) => ({
      name: p.name,
      cakes: cakes((holdings || {})[p.name]),
      ...(ranking
        ? {
            rank:
              (ranking.find((/** @type {Record<string, any>} */ r) => r.player === p.name) || {})
                .rank || null,
          }
        : {}),
    })),
    zhuangyuan: z ? { player: z.player, dice: z.dice || null } : null,
    ...(ranking
      ? { top: top ? { player: top.player, dice: top.dice, prize: top.unit.name } : null }
      : {}),
    me: session.me || null,
    rematchOf: loadTable(st.code).rematchOf || null,
    rules: st.rules,
  };
  const list = games().filter((g) => g.code !== entry.code);
  list.unshift(entry);
  try {
    localStorage.setItem(KEY, JSON.stringify(list.slice(0, MAX_GAMES)));
  } catch {
    // storage full: the history is a nicety
  }
  return entry;
}

/**
 * The games of this table: this one and the tables it continues (rematches), newest first.
 * @param {any} code
 */
export function tableGames(code) {
  const all = games();
  const byCode = new Map(all.map((g) => [g.code, g]));
  const out = [];
  let cursor = byCode.get(code);
  const seen = new Set();
  while (cursor && !seen.has(cursor.code)) {
    seen.add(cursor.code);
    out.push(cursor);
    cursor = cursor.rematchOf ? byCode.get(cursor.rematchOf) : null;
  }
  return out;
}

/**
 * A game's line: its 状元 (cakes), or who took the top prize (ranked: the 王中王 …).
 * @param {Record<string, any>} g
 */
function winnerText(g) {
  if (g.top) return t("ranked.call", { prize: g.top.prize, player: g.top.player });
  if (g.top === null) return t("ranked.nobody");
  return g.zhuangyuan
    ? t("history.winner", { player: g.zhuangyuan.player })
    : t("history.no_winner");
}

/**
 * What this phone's player took home: cakes, or a ranked table's place.
 * @param {Record<string, any>} g
 */
function meText(g) {
  const me = g.players.find((/** @type {Record<string, any>} */ p) => p.name === g.me) || {
    cakes: 0,
    rank: null,
  };
  if ("top" in g) return t("history.me_ranked", { player: g.me, rank: me.rank || "—" });
  return t("history.me", { player: g.me, n: me.cakes });
}

/**
 * @param {Record<string, any>} g
 * @param {any} current
 */
function gameItem(g, current) {
  const winner = g.top || g.zhuangyuan;
  const when = g.at ? new Date(g.at).toLocaleDateString() : "";
  return h(
    "li",
    { class: `history-item${g.code === current ? " is-current" : ""}` },
    h(
      "a",
      { href: `/t/${g.code}`, "data-link": "", class: "history-name" },
      g.name,
      " ",
      h("span", { class: "hint" }, `${g.code} · ${when}`),
    ),
    h(
      "span",
      { class: "history-winner" },
      winnerText(g),
      winner && winner.dice ? " · " + handName(classify(winner.dice, g.rules)) : "",
    ),
    winner && winner.dice ? diceRow(winner.dice, { size: "xs" }) : null,
    g.me ? h("span", { class: "hint" }, meText(g)) : null,
  );
}

/**
 * The end screen's history card: this table's games and all games on this phone.
 * @param {any} code
 */
export function historyCard(code) {
  const table = tableGames(code);
  const all = games();
  return h(
    "section",
    { class: "card history-card", "aria-labelledby": "history-title" },
    h("h2", { id: "history-title", class: "card-title" }, t("history.title")),
    table.length > 1
      ? h("h3", { class: "sub-title" }, t("history.this_table", { n: table.length }))
      : null,
    table.length > 1
      ? h(
          "ol",
          { class: "history-list" },
          table.map((g) => gameItem(g, code)),
        )
      : null,
    h(
      "details",
      { class: "history-all", open: table.length <= 1 },
      h("summary", {}, t("history.this_phone", { n: all.length })),
      h(
        "ol",
        { class: "history-list" },
        all.map((g) => gameItem(g, code)),
      ),
    ),
  );
}
