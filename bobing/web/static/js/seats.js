// When a phone is missing at an online table: the host throws for that player (stand-in),
// hands the seat to a new phone (a one-time seat link as a QR code: the old phone loses the
// seat), or lets the server throw after N seconds of absence. Each shows in the log.

import { h, mount, need, randomId } from "./dom.js";
import { t } from "./i18n.js";
import { COMMAND, EVENT, MODE, ROLE, STATUS, PHASE } from "./protocol.js";
import { qrSvg } from "./qrcode.js";
import { icon, toast, showError, confirmDialog, copyText, announce } from "./ui.js";
import { loadTable, saveTable } from "./device_store.js";
import { inviteBase, loadInvite } from "./invite.js";

/** Choices of the auto-throw time, in seconds (0 = off). */
export const AUTO_THROW_CHOICES = [0, 15, 30, 60, 120];

/**
 * The link that hands a seat to a new phone (the token rides in the fragment).
 * @param {any} code
 * @param {string | number | boolean} token
 */
export function seatLink(code, token) {
  return `${inviteBase()}/t/${code}#seat=${encodeURIComponent(token)}`;
}

/** The host's tools for absent players (online tables): one element kept across repaints. */
export class SeatTools {
  /**
   * @param {any} session
   */
  constructor(session) {
    this.session = session;
    this.standInBox = h("div", { class: "stand-in" });
    this.list = h("ul", { class: "seat-tools-list" });
    this.select = h(
      "select",
      {
        id: "auto-throw",
        class: "input input-small",
        onchange: (/** @type {{target: HTMLInputElement}} */ ev) =>
          this.setAutoThrow(Number(ev.target.value)),
      },
      AUTO_THROW_CHOICES.map((s) =>
        h("option", { value: String(s) }, s ? t("seats.auto_after", { s }) : t("seats.auto_off")),
      ),
    );
    this.el = h(
      "div",
      { class: "seat-tools" },
      this.standInBox,
      // auto-throw is a setting of the table, in sight (not behind "someone's phone died?")
      h(
        "div",
        { class: "auto-throw-setting" },
        h("label", { for: "auto-throw", class: "label" }, t("seats.auto_label")),
        this.select,
        h("p", { class: "hint" }, t("seats.auto_hint")),
      ),
      h(
        "details",
        { class: "seat-tools-more" },
        h("summary", {}, t("seats.title")),
        h("p", { class: "hint" }, t("seats.hint")),
        this.list,
        h("p", { class: "hint" }, t("seats.latecomer")),
      ),
    );
    loadInvite();
  }

  update() {
    const st = this.session.state;
    const show =
      st && st.mode === MODE.ONLINE && st.status !== STATUS.OVER && this.session.isHost();
    this.el.hidden = !show;
    if (!show) return;
    const next = st.next;
    const canStandIn =
      st.status === STATUS.PLAYING && next && next !== this.session.me && st.phase !== PHASE.GRAB;
    const key = canStandIn ? `${next}:${st.turn}` : "";
    if (this.standInBox.dataset.key !== key) {
      this.standInBox.dataset.key = key;
      mount(
        this.standInBox,
        canStandIn
          ? h(
              "button",
              {
                type: "button",
                class: "btn btn-ghost stand-in-btn",
                "data-fk": "stand-in",
                onclick: () => this.standIn(),
              },
              icon("play"),
              t("seats.stand_in", { player: next }),
            )
          : null,
      );
    }
    const names = (st.players || [])
      .map((/** @type {Record<string, any>} */ p) => p.name)
      .join("|");
    if (this.list.dataset.names !== names) {
      this.list.dataset.names = names;
      mount(
        this.list,
        (st.players || []).map((/** @type {Record<string, any>} */ p) =>
          h(
            "li",
            {},
            h("span", { class: "holder-name" }, p.name),
            h(
              "button",
              {
                type: "button",
                class: "btn btn-small btn-ghost hand-seat-btn",
                "aria-label": t("seats.hand_to_phone_for", { player: p.name }),
                onclick: () => this.handSeat(p.name),
              },
              icon("share"),
              t("seats.hand_to_phone"),
            ),
          ),
        ),
      );
    }
    const seconds = String((st.auto_throw && st.auto_throw.seconds) || 0);
    if (document.activeElement !== this.select) {
      if (![...this.select.options].some((o) => o.value === seconds))
        this.select.appendChild(
          h("option", { value: seconds }, t("seats.auto_after", { s: seconds })),
        );
      this.select.value = seconds;
    }
  }

  async standIn() {
    const st = this.session.state;
    const player = st.next;
    // someone this device seated without a phone: standing in is the plan, not an exception
    const yes =
      this.session.isPhoneless(player) ||
      (await confirmDialog({
        title: t("seats.stand_in_title", { player }),
        body: t("seats.stand_in_body", { player, n: st.turn }),
        yes: t("seats.stand_in_yes"),
      }));
    if (!yes || this.session.state.next !== player) return;
    try {
      await this.session.throwDice({ nonce: randomId(20), stand_in: true });
    } catch (err) {
      showError(err);
    }
  }

  /**
   * @param {any} player
   */
  async handSeat(player) {
    const yes = await confirmDialog({
      title: t("seats.hand_title", { player }),
      body: t("seats.hand_body", { player }),
      yes: t("seats.hand_yes"),
    });
    if (!yes) return;
    try {
      const ack = await this.session.send(COMMAND.HAND_SEAT, { player });
      const reply = ack.reply || {};
      showSeatQr(this.session.code, reply.player || player, reply.seat_token);
    } catch (err) {
      showError(err);
    }
  }

  /**
   * @param {number} seconds
   */
  async setAutoThrow(seconds) {
    try {
      await this.session.send(COMMAND.SET_AUTO_THROW, { seconds });
    } catch (err) {
      showError(err);
    }
  }
}

/**
 * The QR code of a seat link, in a dialog the host shows to the new phone.
 * @param {any} code
 * @param {any} player
 * @param {any} token
 */
export function showSeatQr(code, player, token) {
  const url = seatLink(code, token);
  const dialog = h("dialog", {
    class: "dialog seat-qr-dialog",
    "aria-labelledby": "seat-qr-title",
  });
  const close = () => {
    dialog.close();
    dialog.remove();
  };
  mount(
    dialog,
    h("h2", { id: "seat-qr-title", class: "dialog-title" }, t("seats.qr_title", { player })),
    h("p", { class: "dialog-body" }, t("seats.qr_body", { player })),
    h("div", { class: "qr-box" }, qrSvg(url, { label: t("seats.qr_title", { player }) })),
    h("p", { class: "seat-link hint" }, url),
    h(
      "div",
      { class: "dialog-actions" },
      h(
        "button",
        {
          type: "button",
          class: "btn btn-ghost",
          onclick: () => copyText(url).then(() => toast(t("lobby.copied"))),
        },
        icon("copy"),
        t("seats.copy_link"),
      ),
      h("button", { type: "button", class: "btn btn-primary", onclick: close }, t("common.done")),
    ),
  );
  document.body.appendChild(dialog);
  dialog.showModal();
  return dialog;
}

/** A line under the turn: when the server will throw for an absent player. */
export class AutoThrowNote {
  /**
   * @param {any} session
   */
  constructor(session) {
    this.session = session;
    this.el = h("p", { class: "auto-throw-note", hidden: true });
    this.timer = setInterval(() => this.update(), 1000);
  }

  destroy() {
    clearInterval(this.timer);
  }

  update() {
    const st = this.session.state;
    const auto = st && st.auto_throw;
    if (!auto || !auto.deadline || !st.next || st.status !== STATUS.PLAYING) {
      this.el.hidden = true;
      return;
    }
    const left = Math.max(0, Math.ceil((Date.parse(auto.deadline) - Date.now()) / 1000));
    this.el.hidden = false;
    this.el.textContent =
      left > 0
        ? t("seats.auto_countdown", { player: st.next, s: left })
        : t("seats.auto_now", { player: st.next });
  }
}

/**
 * Follow one table's seat events on this device: a seat link opened here is traded for this
 * phone's own token (claim_seat); a phone whose seat was handed on is told and forgets it.
 * @param {import("./session.js").TableSession & Record<string, any>} session
 */
export function attachSeats(session) {
  let claiming = false;
  const claim = async () => {
    if (claiming || !loadTable(session.code).claimSeat || !session.roles.includes(ROLE.SEAT))
      return;
    claiming = true;
    try {
      const ack = await session.send(COMMAND.CLAIM_SEAT, {});
      const reply = ack.reply || {};
      saveTable(session.code, {
        playerToken: reply.player_token,
        playerName: reply.player,
        claimSeat: false,
      });
      session.me = reply.player;
      need(session.conn, "the table's connection").setTokens(session.tokens());
      toast(t("seats.claimed", { player: reply.player }));
      announce(t("seats.claimed", { player: reply.player }));
    } catch (err) {
      saveTable(session.code, { claimSeat: false });
      showError(err);
    } finally {
      claiming = false;
    }
  };
  session.addEventListener("update", (/** @type {CustomEvent} */ ev) => {
    claim();
    if (!ev.detail.live) return;
    for (const e of ev.detail.events) {
      if (e.type !== EVENT.SEAT_HANDED || e.player !== session.me) continue;
      const saved = loadTable(session.code);
      if (saved.claimSeat || !saved.playerToken) continue;
      // this phone's seat went to another phone
      saveTable(session.code, { playerToken: null, playerName: null });
      session.me = null;
      need(session.conn, "the table's connection").setTokens(session.tokens());
      toast(t("seats.lost", { player: e.player }), { kind: "error" });
      announce(t("seats.lost", { player: e.player }));
    }
  });
}

/**
 * A seat link opened on this device: keep its token until it is traded (app.js calls this).
 * @param {string} code
 * @param {URLSearchParams} hash
 */
export function takeSeatLink(code, hash) {
  const seat = hash.get("seat");
  if (!seat) return false;
  saveTable(code, { playerToken: seat, claimSeat: true, playerName: null });
  return true;
}
