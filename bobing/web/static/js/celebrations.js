// What makes a table feel like the WeChat 博饼 games people know: big hands called out loud,
// confetti for a 状元, reactions, the rematch and the history of games. app.js attaches it to
// each table session once it is here (it comes with the game's screens, table.js); the
// screens call celebrateThrow and celebrateEnd.

import { t } from "./i18n.js";
import { STATUS } from "./protocol.js";
import { tierOf } from "./rulebook.js";
import { describeThrow } from "./award.js";
import { say, worthCalling } from "./voice.js";
import { confetti } from "./confetti.js";
import { attachReactions } from "./reactions.js";
import { attachRematch } from "./rematch.js";
import { recordGame } from "./history.js";

/**
 * A throw has landed in the bowl: call out a big hand, confetti for a 状元 hand.
 * @param {Record<string, any>} thrown
 * @param {import("./protocol.js").TableState} state
 */
export function celebrateThrow(thrown, state) {
  const d = describeThrow(thrown, state.rules);
  if (!d.hand) return;
  const tier = tierOf(d.hand, state.rules);
  // spoken without the romanized id in brackets: "Zhuangyuan with golden flowers!"
  const spoken = d.name.replace(/\s*[（(][^）)]*[）)]/g, "").replace(/[！!]+$/, "");
  if (worthCalling(d.hand, tier)) say(t("voice.hand", { hand: spoken }));
  if (tier === "zhuangyuan") confetti();
}

/**
 * The ceremony opens: confetti, and the 状元 called by name.
 * @param {import("./protocol.js").TableState} state
 */
export function celebrateEnd(state) {
  const z = state.result && state.result.zhuangyuan;
  confetti({ pieces: 220 });
  say(z ? t("voice.winner", { player: z.player }) : t("end.no_winner"));
}

/**
 * @param {import("./session.js").TableSession & Record<string, any>} session
 * @param {{navigate: (path: string) => void}} options
 */
export function attachTableLife(session, { navigate }) {
  attachReactions(session);
  attachRematch(session, navigate);
  session.addEventListener("update", () => {
    const st = session.state;
    if (st && st.status === STATUS.OVER && session.recordedOver !== st.last_seq) {
      session.recordedOver = st.last_seq;
      recordGame(session);
    }
  });
}
