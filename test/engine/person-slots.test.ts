// Per-person interval bitsets: passes cover every person id exactly once, persons created
// after the store was read (ids past its count) land in the last pass, and bits come back
// per person in slot order.
import { describe, expect, test } from "bun:test";
import { bitCount, personSlotPasses, type PersonSlotPass } from "../../engine/person-slots.ts";

function setsOf(pass: PersonSlotPass): [number, number[]][] {
  const out: [number, number[]][] = [];
  pass.forEachPerson((person, bits, offset) => {
    const slots: number[] = [];
    for (let slot = 0; slot < pass.slotCount; slot++) if ((bits[offset + (slot >>> 5)]! & (1 << (slot & 31))) !== 0) slots.push(slot);
    out.push([person, slots]);
  });
  return out;
}

describe("personSlotPasses", () => {
  test("one pass when everything fits; persons past the store's count grow it", () => {
    const passes = [...personSlotPasses(3, 40)];
    expect(passes.map((pass) => [pass.first, pass.end, pass.words])).toEqual([[0, Infinity, 2]]);
    const [pass] = passes;
    pass!.add(2, 39);
    pass!.add(0, 0);
    pass!.add(0, 31);
    pass!.add(0, 32);
    pass!.add(7, 5);
    pass!.add(0, 0);
    expect(setsOf(pass!)).toEqual([[0, [0, 31, 32]], [2, [39]], [7, [5]]]);
  });

  test("ranges of persons that fit the bound, the last one open-ended", () => {
    // 2 words per person (33 slots), 24 bytes: 3 persons per pass.
    const passes = [...personSlotPasses(7, 33, 24)];
    expect(passes.map((pass) => [pass.first, pass.end])).toEqual([[0, 3], [3, 6], [6, Infinity]]);
    expect([0, 2, 3, 5, 6, 100].map((person) => passes.findIndex((pass) => pass.covers(person)))).toEqual([0, 0, 1, 1, 2, 2]);
    passes[1]!.add(4, 32);
    passes[2]!.add(100, 1);
    expect(setsOf(passes[1]!)).toEqual([[4, [32]]]);
    expect(setsOf(passes[2]!)).toEqual([[100, [1]]]);
  });

  test("a bound below one person's bitset still makes progress (one person per pass)", () => {
    expect([...personSlotPasses(2, 100, 1)].map((pass) => [pass.first, pass.end])).toEqual([[0, 1], [1, Infinity]]);
  });

  test("no persons yet: one open pass", () => {
    expect([...personSlotPasses(0, 5)].map((pass) => [pass.first, pass.end])).toEqual([[0, Infinity]]);
  });
});

test("bitCount", () => {
  expect([0, 1, 0b1011, 0x80000000 | 0, -1, 0x55555555].map(bitCount)).toEqual([0, 1, 3, 1, 32, 16]);
});
