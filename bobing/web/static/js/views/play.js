// The table in play: the bowl, the award and why, whose turn, the cakes left, holdings, the
// 状元 standing, the log; a throw button (or shake), the referee's pad, host controls.

import { h, mount, randomId, sleep, reducedMotion } from "../dom.js";
import { t } from "../i18n.js";
import { COMMAND, EVENT, MODE, PHASE, STATUS, TIERS } from "../protocol.js";
import { Bowl, diceRow } from "../dice.js";
import { tierOf } from "../rulebook.js";
import { describeThrow, awardLines, logLine, leaderText, cakes, setLabel } from "../award.js";
import { photoLink } from "../widgets/photo_link.js";
import { api } from "../api.js";
import { RefereePad } from "../referee.js";
import { icon, announce, showError, toast } from "../ui.js";
import { rattle, settle, chime, gong, unlock } from "../sound.js";
import { prefs, setPref } from "../device_store.js";
import { keepFocus } from "../widgets/keep_focus.js";
import { shownKey, poolView, holdingsTable, onlyZhuangyuanText } from "../widgets/board.js";
import { canUndo, undoButton } from "../widgets/undo.js";
import { grabCard } from "../grab.js";
import { SeatTools, AutoThrowNote } from "../seats.js";
import { reactionBar } from "../reactions.js";
import { celebrateThrow } from "../celebrations.js";
import { CountdownBar, askClose } from "../countdown.js";
import { isRanked, paintLeaderboard, prizeList } from "../ranked.js";

/** @typedef {import("../protocol.js").TableState} TableState */

const LOG_LIMIT = 60;
const SHAKE_DELTA = 14;
const SHAKE_GAP_MS = 1500;
const ROLL_MS = 650;

/**
 * The faces of a thrown event (none: null).
 * @param {Record<string, any> | null | undefined} thrown
 * @returns {number[] | null}
 */
function facesOf(thrown) {
  return thrown && thrown.dice ? thrown.dice.split("").map(Number) : null;
}

/**
 * Roll the bowl; resolves as soon as the faces are in it (the landing is decoration), or when
 * a newer roll cut this one short.
 * @param {Bowl} bowl
 * @param {number[] | "blank" | null | Promise<number[] | "blank" | null>} faces the faces, or a
 *   promise of them (Bowl.roll)
 * @param {Record<string, any>} options the bowl's roll options (seed, minMs, quick, onSettle)
 * @returns {Promise<unknown>}
 */
function rollShown(bowl, faces, options) {
  /** @type {(value?: unknown) => void} set at once, by the promise's executor below */
  let shown = () => {};
  const promise = new Promise((resolve) => {
    shown = resolve;
  });
  bowl.roll(faces, { ...options, onShown: shown }).then(shown, shown);
  return promise;
}

/** 一二会 (RULES.md §10.2): one line per finished set while the next is played: its 状元 and
 * what each person took home from it (the set in play is the table above).
 * @param {import("../protocol.js").TableState} state */
export function setsDone(state) {
  const done = (state.result && state.result.sets) || [];
  if (!done.length) return null;
  return h(
    "ul",
    { class: "sets-done" },
    done.map((/** @type {Record<string, any>} */ one, /** @type {number} */ i) => {
      const won = Object.entries(one.holdings || {})
        .filter(([, held]) => cakes(held))
        .map(([name, held]) => t("play.set_cakes", { player: name, n: cakes(held) }))
        .join(t("list.sep"));
      return h(
        "li",
        { "data-set": String(i + 1) },
        t("play.set_done", {
          n: i + 1,
          player: (one.zhuangyuan && one.zhuangyuan.player) || "—",
          won,
        }),
      );
    }),
  );
}

export class PlayPanel {
  /**
   * @param {import("../session.js").TableSession & Record<string, any>} session
   * @param {Record<string, any>} ctx
   */
  constructor(session, ctx) {
    this.session = session;
    this.ctx = ctx;
    /** @type {number | undefined} the set last painted (一二会: a new one is announced) */
    this.shownSet = undefined;
    this.bowl = new Bowl();
    this.turnBar = h("div", { class: "turn-bar", "aria-live": "off" });
    this.awardBox = h("section", { class: "card award", "aria-label": t("play.last_throw") });
    this.actionBox = h("div", { class: "action" });
    this.poolBox = h("section", { class: "card pool-card", "aria-labelledby": "pool-title" });
    this.leaderBox = h("section", { class: "card leader-card" });
    this.playersBox = h("section", {
      class: "card players-card",
      "aria-labelledby": "players-title",
      tabindex: "0", // it scrolls when the holdings are wider than the phone
    });
    this.logBox = h("section", { class: "card log-card", "aria-labelledby": "log-title" });
    this.hostBox = h("div", { class: "host-bar" });
    this.pausedBox = h("div", { class: "paused-note", role: "status", hidden: true });
    this.onlyBox = h("div", { class: "only-zhuangyuan", role: "status", hidden: true });
    this.nonceBox = h("div", { class: "nonce-alert", role: "alert", hidden: true });
    this.onNonce = (/** @type {CustomEvent} */ ev) => {
      this.paintNonceAlert();
      this.paintLog();
      announce(t("play.nonce_alert", { n: ev.detail.throw }));
    };
    session.addEventListener("nonce", this.onNonce);
    this.settled = Promise.resolve();
    this.pending = null;
    this.countdown = new CountdownBar(session);
    this.myRoll = null;
    this.throwing = false;
    this.pad = null;
    /** @type {string | null} what the action box shows (its kind: "button", "pad", …) */
    this.actionKind = null;
    this.grabBox = null;
    /** @type {string | null} the key (shownKey) of the throw the bowl shows */
    this.lastShown = null;
    this.lastMag = null;
    this.lastShake = 0;
    this.onMotion = (/** @type {DeviceMotionEvent} */ ev) => this.motion(ev);
    this.onKey = (/** @type {KeyboardEvent} */ ev) => {
      // Space or Enter throws when no control has the focus (a focused button handles its own)
      const el = document.activeElement;
      const idle = !el || el === document.body || el.id === "main";
      if (
        idle &&
        (ev.key === " " || ev.key === "Enter") &&
        this.actionKind === "button" &&
        !ev.repeat
      ) {
        ev.preventDefault();
        this.throwOnline();
      }
    };
    document.addEventListener("keydown", this.onKey);
    this.seatTools = new SeatTools(session);
    this.autoNote = new AutoThrowNote(session);
    this.el = h(
      "div",
      { class: "play" },
      // the page's one h1 (the top bar shows the table's name in small type)
      h("h1", { class: "sr-only play-title" }, session.state ? session.state.name : ""),
      h(
        "div",
        { class: "play-main" },
        this.countdown.el,
        this.turnBar,
        this.nonceBox,
        this.pausedBox,
        this.onlyBox,
        h("div", { class: "bowl-stage" }, this.bowl.el),
        this.autoNote.el,
        this.awardBox,
        this.actionBox,
        this.seatTools.el,
        reactionBar(session),
      ),
      h(
        "div",
        { class: "play-side" },
        this.leaderBox,
        this.poolBox,
        this.playersBox,
        this.logBox,
        this.hostBox,
      ),
    );
    // shake to throw is on by default where the phone allows it without asking; where it
    // needs permission (iOS) one tap on the shake button turns it on
    this.shakeActive = false;
    if (prefs().shake !== false) this.enableShake().then((ok) => this.setShakeActive(ok));
    this.paintAll();
  }

  destroy() {
    if (this.pad) this.pad.destroy();
    this.autoNote.destroy();
    this.countdown.destroy();
    window.removeEventListener("devicemotion", this.onMotion);
    document.removeEventListener("keydown", this.onKey);
    this.session.removeEventListener("nonce", this.onNonce);
  }

  /** The warning: the server did not roll with the nonce this device (or a thrower's) sent. */
  paintNonceAlert() {
    const alerts = this.session.nonceAlerts;
    const mine = new Set(alerts.map((/** @type {Record<string, any>} */ a) => a.throw));
    const others = this.session.disputes().filter((e) => !mine.has(e.throw));
    const throws = alerts.filter((/** @type {Record<string, any>} */ a) => a.throw > 0);
    this.nonceBox.hidden = !alerts.length && !others.length;
    if (this.nonceBox.hidden) return;
    mount(
      this.nonceBox,
      h("strong", {}, "⚠ ", t("play.nonce_alert_title")),
      throws.length
        ? h(
            "p",
            {},
            t("play.nonce_alert_body", {
              list: throws
                .map((/** @type {Record<string, any>} */ a) => a.throw)
                .join(t("list.sep")),
              n: throws.length,
            }),
          )
        : null,
      alerts.some((/** @type {Record<string, any>} */ a) => a.throw === 0)
        ? h("p", {}, t("play.nonce_alert_start"))
        : null,
      others.map((e) => h("p", {}, t("play.nonce_disputed", { n: e.throw, player: e.player }))),
    );
  }

  /** @param {{events: import("../protocol.js").LogEvent[], live: boolean}} detail */
  update(detail) {
    // Never queue behind an animation: the bowl shows the latest throw, a newer one cuts a
    // stale tumble short, and everything else is painted at once.
    try {
      this.apply(detail);
    } catch (err) {
      console.warn(err);
      this.paintAll();
    }
  }

  /**
   * Show the game's last throw, then resolve (the ceremony follows at once).
   * @param {{events: import("../protocol.js").LogEvent[], live: boolean}} detail
   */
  async finish(detail) {
    this.update(detail);
    await this.settled;
    await sleep(reducedMotion() ? 200 : 900);
  }

  /** @param {{events: import("../protocol.js").LogEvent[], live: boolean}} detail */
  apply({ events, live }) {
    const disputed = events.filter(
      (e) =>
        e.type === EVENT.NONCE_DISPUTED &&
        !this.session.nonceAlerts.some(
          (/** @type {Record<string, any>} */ a) => a.throw === e.throw,
        ),
    );
    if (live && disputed.length) {
      const e = disputed[disputed.length - 1];
      announce(t("play.nonce_disputed", { n: e.throw, player: e.player }));
      toast(t("play.nonce_disputed", { n: e.throw, player: e.player }), { kind: "error" });
    }
    const undone = events.filter((e) => e.type === EVENT.THROW_UNDONE);
    if (live && undone.length) this.noteUndone(undone[undone.length - 1]);
    const thrown = events.filter((e) => e.type === EVENT.THROWN && !this.session.isVoided(e));
    const last = thrown[thrown.length - 1];
    if (live && last) {
      this.showThrow(last);
      return;
    }
    this.paintAll();
  }

  /**
   * Roll the bowl to `last`; a throw that arrives meanwhile replaces it (no queue).
   * @param {import("../protocol.js").LogEvent} last
   */
  showThrow(last) {
    this.pending = last;
    document.dispatchEvent(new CustomEvent("bobing:throw", { detail: { throw: last.throw } }));
    this.paintTurn(true);
    let shown;
    if (this.myRoll && this.myRoll.turn === last.throw) {
      shown = this.myRoll.shown;
    } else {
      // a bowl still busy with an older throw shows this one at once (no queue, no tumble)
      const behind = this.bowl.rolling;
      if (!behind) rattle(0.8);
      shown = rollShown(this.bowl, facesOf(last), {
        seed: last.throw,
        minMs: ROLL_MS,
        quick: behind,
        onSettle: settle,
      });
    }
    this.myRoll = null;
    this.settled = shown.then(() => {
      if (this.pending !== last) return this.settled; // a newer throw took over
      this.pending = null;
      this.lastShown = shownKey(last);
      this.bowl.el.dataset.shown = String(last.throw);
      this.paintAll();
      this.celebrate(last);
      this.dispatchShown(last);
      return undefined;
    });
    this.paintAll();
  }

  /** @param {import("../protocol.js").LogEvent} last */
  dispatchShown(last) {
    document.dispatchEvent(
      new CustomEvent("bobing:shown", {
        detail: { thrown: last, state: this.session.state, session: this.session },
      }),
    );
  }

  /**
   * 一二会 (RULES.md §10.2): say so once when a set is over and the next begins.
   * @param {import("../protocol.js").TableState} st
   */
  noteNextSet(st) {
    const set = st.result && st.result.set;
    if (!set) return;
    const seen = this.shownSet;
    this.shownSet = set;
    if (seen === undefined || set <= seen) return;
    const done = ((st.result && st.result.sets) || [])[set - 2]; // st.result is set (above)
    const player = (done && done.zhuangyuan && done.zhuangyuan.player) || "—";
    const text = t("play.set_over", { n: set - 1, player, next: set, starter: st.next || "" });
    announce(text);
    toast(text);
  }

  /** @param {import("../protocol.js").LogEvent} e */
  noteUndone(e) {
    const st = /** @type {TableState} */ (this.session.state); // a play panel has a state
    const d = describeThrow(e, st.rules);
    const text = t("play.undone", { n: e.throw, player: e.player, hand: d.name });
    announce(text);
    toast(text);
  }

  /** @param {import("../protocol.js").LogEvent} thrown */
  celebrate(thrown) {
    const st = /** @type {TableState} */ (this.session.state); // a play panel has a state
    const d = describeThrow(thrown, st.rules);
    const lines = awardLines(this.session.throwDetails(thrown.throw), st);
    announce(
      t("play.announce", {
        n: thrown.throw,
        player: thrown.player,
        hand: d.name,
        why: d.why,
        award: lines.join(t("list.sentence")),
      }),
    );
    const tier = d.hand ? tierOf(d.hand, st.rules) : null;
    if (
      tier === "zhuangyuan" ||
      ["liubohong", "liubohei", "biandijin"].includes(/** @type {string} */ (d.hand))
    )
      gong();
    else if (tier) chime(1 + TIERS.length - TIERS.indexOf(tier) - 1);
    celebrateThrow(thrown, st);
    this.awardBox.classList.remove("flash");
    void this.awardBox.offsetWidth;
    this.awardBox.classList.add("flash");
  }

  paintAll() {
    const st = this.session.state;
    if (!st) return;
    this.noteNextSet(st);
    this.paintTurn(Boolean(this.pending));
    this.paintNonceAlert();
    this.paintBowl();
    this.paintAward();
    this.paintAction();
    if (isRanked(st)) {
      // one prize per person by best throw: the leaderboard and the prize list say it all
      paintLeaderboard(this.leaderBox, st, { me: this.session.me });
      mount(
        this.poolBox,
        h("h2", { id: "pool-title", class: "card-title" }, t("ranked.prizes")),
        prizeList(st),
      );
      this.playersBox.hidden = true;
    } else {
      this.paintLeader();
      mount(
        this.poolBox,
        h("h2", { id: "pool-title", class: "card-title" }, t("play.pool")),
        poolView(st),
      );
      mount(
        this.playersBox,
        h("h2", { id: "players-title", class: "card-title" }, t("play.holdings")),
        holdingsTable(st, { me: this.session.me }),
        setsDone(st),
      );
    }
    this.paintLog();
    this.paintHost();
    this.seatTools.update();
    this.autoNote.update();
  }

  /** @param {boolean} [rolling] */
  paintTurn(rolling) {
    const st = /** @type {TableState} */ (this.session.state); // a play panel has a state
    const parts = [];
    if (st.status === STATUS.OVER) {
      parts.push(h("span", { class: "turn-main" }, t("play.game_over")));
    } else if (st.status === STATUS.PAUSED) {
      parts.push(h("span", { class: "turn-main" }, t("play.paused")));
    } else if (st.phase === PHASE.GRAB) {
      parts.push(h("span", { class: "turn-main" }, t("play.grab_phase")));
    } else if (rolling) {
      parts.push(h("span", { class: "turn-main" }, t("play.rolling")));
    } else if (st.next) {
      const mine = st.mode === MODE.ONLINE && st.next === this.session.me;
      parts.push(h("span", { class: "turn-no" }, t("play.throw_no", { n: st.turn })));
      parts.push(
        h(
          "span",
          { class: "turn-main" },
          mine ? t("play.your_turn") : t("play.turn_of", { player: st.next }),
        ),
      );
    }
    const set = setLabel(st);
    if (set) parts.push(h("span", { class: "badge set-badge" }, set));
    if ((st.phase === PHASE.FINAL || st.final_round) && !st.closing) {
      const fin = st.final_round;
      parts.push(
        h(
          "span",
          {
            class: "badge badge-gold final-badge",
            title: fin ? t("play.final_left", { n: fin.throws_left }) : "",
          },
          fin && fin.last_thrower
            ? t("play.final_until", { player: fin.last_thrower })
            : t("play.final_round"),
        ),
      );
    }
    mount(this.turnBar, parts);
    this.pausedBox.hidden = st.status !== STATUS.PAUSED;
    this.pausedBox.textContent = st.status === STATUS.PAUSED ? t("play.paused_note") : "";
    const only = onlyZhuangyuanText(st);
    this.onlyBox.hidden = !only;
    if (this.onlyBox.textContent !== only) this.onlyBox.textContent = only;
  }

  paintBowl() {
    if (this.bowl.rolling || this.pending) return;
    const last = /** @type {TableState} */ (this.session.state).last_throw; // a play panel has a state
    const key = shownKey(last);
    this.bowl.el.dataset.shown = last ? String(last.throw) : "0";
    if (
      this.lastShown === key &&
      this.bowl.tray.childElementCount + (this.bowl.stamp.hidden ? 0 : 1) > 0
    )
      return;
    this.lastShown = key;
    if (!last) this.bowl.show([], { seed: 1 });
    else if (!last.dice) this.bowl.show([], { seed: last.throw, stamp: t("tiaohou.short") });
    else this.bowl.show(last.dice, { seed: last.throw });
  }

  paintAward() {
    const st = /** @type {TableState} */ (this.session.state); // a play panel has a state
    const last = st.last_throw;
    if (this.pending) return; // the award shows once the dice land
    if (!last) {
      mount(this.awardBox, h("p", { class: "award-empty" }, t("play.no_throw_yet")));
      return;
    }
    const details = this.session.throwDetails(last.throw);
    const thrown = details.thrown || { ...last };
    const d = describeThrow(thrown, st.rules);
    const lines = awardLines({ ...details, thrown }, st);
    mount(
      this.awardBox,
      h("p", { class: "award-who" }, t("play.threw", { n: last.throw, player: last.player })),
      h("p", { class: `award-name hand-${d.hand || "tiaohou"}` }, d.name),
      h("p", { class: "award-why" }, d.why),
      lines.length
        ? h(
            "ul",
            { class: "award-lines" },
            lines.map((line) => h("li", {}, line)),
          )
        : null,
      // the referee sees here what was entered: a typo is taken back right where it shows
      this.session.isHost() && canUndo(st)
        ? h("div", { class: "award-undo" }, undoButton(this.session))
        : null,
    );
  }

  paintLeader() {
    const st = /** @type {TableState} */ (this.session.state); // a play panel has a state
    const text = leaderText(st.result, st.rules);
    const z = st.result && st.result.zhuangyuan;
    mount(
      this.leaderBox,
      h("h2", { class: "card-title" }, t("play.leader")),
      text
        ? h(
            "div",
            { class: "leader" },
            h("span", { class: "leader-name" }, text),
            z && z.dice ? diceRow(z.dice) : null,
            z && z.throw ? h("span", { class: "hint" }, t("play.at_throw", { n: z.throw })) : null,
          )
        : h("p", { class: "hint" }, t("play.no_leader")),
    );
  }

  paintLog() {
    const st = /** @type {TableState} */ (this.session.state); // a play panel has a state
    const items = [];
    const events = this.session.events;
    for (let i = events.length - 1; i >= 0 && items.length < LOG_LIMIT; i--) {
      const e = events[i];
      const alert = this.session.nonceAlerts.find(
        (/** @type {Record<string, any>} */ a) => a.seq === e.seq,
      );
      if (alert) {
        const key = alert.throw ? "log.nonce_alert" : "log.nonce_alert_start";
        items.push(
          h(
            "li",
            { class: "log-item log-nonce-alert" },
            h("span", {}, t(key, { n: alert.throw, sent: alert.sent, nonce: alert.nonce || "—" })),
          ),
        );
      }
      // this phone's own alert above already says it, in more detail
      if (
        e.type === EVENT.NONCE_DISPUTED &&
        this.session.nonceAlerts.some((/** @type {Record<string, any>} */ a) => a.throw === e.throw)
      )
        continue;
      const line = logLine(e, st.rules);
      if (!line) continue;
      const voided = this.session.isVoided(e);
      items.push(
        h(
          "li",
          {
            class: `log-item log-${e.type}${voided ? " is-voided" : ""}`,
            title: voided ? t("log.voided") : null,
          },
          e.type === EVENT.THROWN && e.dice ? diceRow(e.dice, { size: "xs" }) : null,
          h("span", {}, line),
          photoLink(this.session, e),
        ),
      );
    }
    mount(
      this.logBox,
      h("h2", { id: "log-title", class: "card-title" }, t("play.log")),
      // a scrolling region: reachable and named for the keyboard (axe scrollable-region-focusable)
      h(
        "ol",
        { class: "log", reversed: true, tabindex: "0", "aria-labelledby": "log-title" },
        items,
      ),
    );
  }

  // ---- acting ------------------------------------------------------------------------------

  paintAction() {
    const st = /** @type {TableState} */ (this.session.state); // a play panel has a state
    const s = this.session;
    let kind = "wait";
    if (st.phase === PHASE.GRAB) kind = st.mode === MODE.REFEREE && s.isHost() ? "grab" : "wait";
    else if (s.canThrow()) kind = st.mode === MODE.REFEREE ? "referee" : "button";
    if (kind !== this.actionKind) {
      if (this.pad) {
        this.pad.destroy();
        this.pad = null;
      }
      this.actionKind = kind;
      mount(this.actionBox);
    }
    if (kind === "button") this.paintButton();
    else if (kind === "referee") this.paintReferee();
    else if (kind === "grab") this.paintGrab();
    else {
      let text;
      if (st.status === STATUS.OVER) text = t("play.game_over");
      else if (st.status === STATUS.PAUSED) text = t("play.paused_note");
      else if (st.phase === PHASE.GRAB) text = t("play.grab_wait");
      else if (st.mode === MODE.REFEREE) text = t("play.referee_wait", { player: st.next || "" });
      else if (st.mode === MODE.PASS_AND_PLAY) text = t("play.shared_wait");
      else if (!s.me) text = t("play.spectating");
      else text = t("play.wait_for", { player: st.next || "" });
      mount(this.actionBox, h("p", { class: "waiting" }, text));
    }
  }

  paintButton() {
    const st = /** @type {TableState} */ (this.session.state); // a play panel has a state
    const label =
      st.mode === MODE.PASS_AND_PLAY ? t("play.throw_for", { player: st.next }) : t("play.throw");
    let button = this.actionBox.querySelector(".throw-btn");
    if (!button) {
      button = h("button", {
        type: "button",
        class: "btn btn-primary btn-huge throw-btn",
        "data-fk": "throw",
        onclick: () => this.throwOnline(),
      });
      const motionOk =
        typeof window.DeviceMotionEvent !== "undefined" &&
        window.matchMedia("(pointer: coarse)").matches;
      mount(
        this.actionBox,
        button,
        motionOk
          ? h(
              "button",
              {
                type: "button",
                class: "btn btn-ghost btn-small shake-btn",
                "aria-pressed": String(this.shakeActive),
                onclick: () => this.toggleShake(),
              },
              icon("shake"),
              t(this.shakeActive ? "play.shake_on" : "play.shake_off"),
            )
          : null,
        h("p", { class: "hint kbd-hint" }, t("play.key_hint")),
      );
    }
    button.textContent = this.throwing ? t("play.rolling") : label;
    button.disabled = this.throwing;
  }

  async throwOnline() {
    if (this.throwing || !this.session.canThrow()) return;
    unlock();
    this.throwing = true;
    this.paintButton();
    const turn = /** @type {TableState} */ (this.session.state).turn; // a play panel has a state
    const previous = this.bowl.faces.length ? this.bowl.faces.slice() : "blank";
    const behind = this.bowl.rolling;
    if (!behind) rattle(1.1);
    const thrown = this.session.throwDice({ nonce: randomId(20) });
    const faces = thrown.then(facesOf, () => previous);
    this.myRoll = {
      turn,
      shown: rollShown(this.bowl, faces, {
        seed: turn,
        minMs: 800,
        quick: behind,
        onSettle: settle,
      }),
    };
    try {
      await thrown;
    } catch (err) {
      this.myRoll = null;
      showError(err);
    } finally {
      this.throwing = false;
      this.paintAction();
    }
  }

  paintReferee() {
    const st = /** @type {TableState} */ (this.session.state); // a play panel has a state
    if (!this.pad) {
      this.pad = new RefereePad({
        rules: st.rules,
        title: t("ref.title_for", { player: st.next, n: st.turn }),
        onConfirm: (faces, photoId) => this.refereeThrow(faces, photoId),
        // 拍照识别: the server reads the photo for whoever may enter faces (the host's token
        // first); the faces wait on the pad for the confirm
        readPhoto: (photo) => api.readDice(this.session.code, photo, this.session.tokens()[0]),
      });
      mount(this.actionBox, this.pad.el);
    } else {
      const title = this.pad.el.querySelector(".card-title");
      title.textContent = t("ref.title_for", { player: st.next, n: st.turn });
      this.pad.el.setAttribute("aria-label", title.textContent);
    }
  }

  /**
   * @param {number[] | null} faces  null: 跳猴
   * @param {string | null} photoId  the kept photo they were read from (a keep_photos table)
   */
  async refereeThrow(faces, photoId = null) {
    unlock();
    /** @type {Record<string, unknown>} */
    const fields = faces ? { dice: faces.join("") } : { tiaohou: true };
    if (photoId) fields.photo_id = photoId;
    try {
      await this.session.throwDice(fields);
    } catch (err) {
      showError(err);
      throw err;
    }
  }

  paintGrab() {
    if (this.actionBox.querySelector(".grab-card")) return;
    mount(this.actionBox, grabCard(this.session));
  }

  // ---- shake to throw ------------------------------------------------------------------------

  /** @param {boolean} on */
  setShakeActive(on) {
    this.shakeActive = on;
    const button = this.actionBox.querySelector(".shake-btn");
    if (button) {
      button.setAttribute("aria-pressed", String(on));
      mount(button, icon("shake"), t(on ? "play.shake_on" : "play.shake_off"));
    }
  }

  async toggleShake() {
    const on = !this.shakeActive;
    if (on) {
      const ok = await this.enableShake();
      if (!ok) {
        toast(t("play.shake_denied"), { kind: "error" });
        return;
      }
    } else {
      window.removeEventListener("devicemotion", this.onMotion);
    }
    setPref("shake", on);
    this.setShakeActive(on);
  }

  async enableShake() {
    const DME = /** @type {any} */ (window).DeviceMotionEvent;
    if (!DME) return false;
    if (typeof DME.requestPermission === "function") {
      // Chromium grants it without a prompt; iOS refuses a call that is not from a tap (no
      // prompt either), and the shake button then asks with one tap
      try {
        if ((await DME.requestPermission()) !== "granted") return false;
      } catch {
        return false;
      }
    }
    window.removeEventListener("devicemotion", this.onMotion);
    window.addEventListener("devicemotion", this.onMotion);
    return true;
  }

  /** @param {DeviceMotionEvent} ev */
  motion(ev) {
    const a = ev.accelerationIncludingGravity || ev.acceleration;
    if (!a) return;
    const mag = Math.hypot(a.x || 0, a.y || 0, a.z || 0);
    const now = Date.now();
    if (
      this.lastMag !== null &&
      Math.abs(mag - this.lastMag) > SHAKE_DELTA &&
      now - this.lastShake > SHAKE_GAP_MS
    ) {
      this.lastShake = now;
      if (this.actionKind === "button" && !this.throwing) this.throwOnline();
    }
    this.lastMag = mag;
  }

  // ---- host controls -------------------------------------------------------------------------

  paintHost() {
    const st = /** @type {TableState} */ (this.session.state); // a play panel has a state
    if (!this.session.isHost()) {
      mount(this.hostBox);
      return;
    }
    keepFocus(this.hostBox, () =>
      mount(
        this.hostBox,
        h("h2", { class: "sr-only" }, t("host.controls")),
        st.status === STATUS.PAUSED
          ? h(
              "button",
              {
                type: "button",
                class: "btn btn-ghost",
                "data-fk": "resume",
                onclick: () => this.host(COMMAND.RESUME),
              },
              icon("play"),
              t("host.resume"),
            )
          : h(
              "button",
              {
                type: "button",
                class: "btn btn-ghost",
                "data-fk": "pause",
                onclick: () => this.host(COMMAND.PAUSE),
              },
              icon("pause"),
              t("host.pause"),
            ),
        st.closing
          ? h("span", { class: "badge badge-gold closing-badge" }, t("host.time_called"))
          : h(
              "button",
              {
                type: "button",
                class: "btn btn-ghost btn-danger-text",
                "data-fk": "end",
                onclick: () => this.endGame(),
              },
              icon("stop"),
              t("host.end"),
            ),
      ),
    );
  }

  /** @param {string} command */
  async host(command) {
    try {
      await this.session.send(command, {});
    } catch (err) {
      showError(err);
    }
  }

  async endGame() {
    // a close (RULES.md §8.1): the dialog says what will happen at this table
    if (await askClose(this.session)) await this.host(COMMAND.END);
  }
}
