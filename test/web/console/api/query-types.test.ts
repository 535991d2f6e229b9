// The console's copies of the engine's result shapes (web/console/api/query-types.ts) are the
// engine's: each is assignable to the other, checked by the type check (test/typecheck.test.ts),
// so a change of the engine's answers that the console would misread fails it.
import { expect, test } from "bun:test";
import type * as engine from "../../../../engine/execute.ts";
import type * as console from "../../../../web/console/api/query-types.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const shapesAgree: Same<engine.InsightResult, console.InsightResult> = true;

test("the console reads the engine's result shapes", () => {
  expect(shapesAgree).toBe(true);
});
