// rulebook.js without a browser: it looks throws up in what the server sent and never decides.
import { test } from "node:test";
import assert from "node:assert/strict";

const asked = [];
const BOOK = {
  rules: { preset: "modern", wuzi_bonus: true },
  throws: {
    455555: {
      dice: "455555",
      hand: "wuzi",
      tier: "zhuangyuan",
      kicker: 4,
      bonus: ["yixiu"],
      face: 5,
      name: "五子带四",
      why: "五颗5点，另一颗是红四，同时得一秀",
      effect: "状元",
      rank: 15,
    },
  },
  levels: 28,
  ranking: ["六勃红（444444）"],
  order: "六勃红 > 六勃黑",
  switches: [],
  lines: [],
  labels: {},
  meanings: {},
  chase: { tiers: [], from: [] },
};
globalThis.fetch = async (path, init) => {
  asked.push([path, JSON.parse(init.body)]);
  return new Response(JSON.stringify(BOOK), { status: 200 });
};

const book = await import("../../bobing/web/static/js/rulebook.js");

test("a rule object is one key whatever the order of its keys", () => {
  assert.equal(
    book.ruleKey({ b: 1, a: [2, { d: 3, c: 4 }] }),
    book.ruleKey({ a: [2, { c: 4, d: 3 }], b: 1 }),
  );
  assert.notEqual(book.ruleKey({ a: 1 }), book.ruleKey({ a: 2 }));
});

test("dice are looked up sorted, and bad dice are refused", () => {
  assert.equal(book.diceText("555545"), "455555");
  assert.equal(book.diceText([5, 5, 4, 5, 5, 5]), "455555");
  assert.equal(book.diceText("55554"), null);
  assert.equal(book.diceText("555547"), null);
  assert.throws(() => book.classify("1234567", BOOK.rules), /invalid dice/);
});

test("before the rulebook comes a throw has no words; then the server's, fetched once", async () => {
  const rules = { wuzi_bonus: true, preset: "modern" };
  let painted = 0;
  book.onRulebook(() => (painted += 1));
  const waiting = book.classify("555545", rules);
  assert.equal(waiting.hand, "");
  assert.equal(waiting.bonus.length, 0);
  await book.loadRulebook(rules);
  assert.equal(painted, 1, "the screen that asked paints again");
  const c = book.classify("555545", { preset: "modern", wuzi_bonus: true });
  assert.deepEqual([c.hand, c.kicker, c.bonus, c.rank], ["wuzi", 4, ["yixiu"], 15]);
  assert.equal(book.why(c), "五颗5点，另一颗是红四，同时得一秀");
  assert.equal(book.handName(c), "五子带四");
  assert.equal(book.tierOf("wuzi", rules), "zhuangyuan");
  assert.equal(book.orderLine(rules), "六勃红 > 六勃黑");
  await book.loadRulebook(rules);
  assert.equal(asked.length, 1, "one request per rule set and language");
  assert.match(asked[0][0], /^\/api\/rulebook\?lang=/);
});
