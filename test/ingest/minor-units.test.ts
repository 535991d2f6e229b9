// Major units (as drop-in SDKs and RevenueCat send money) to integer minor units.
import { expect, test } from "bun:test";
import { minorDigits, minorFromMajor } from "../../server/ingest/minor-units.ts";
import { toMinorUnits } from "../../server/ingest/revenue/money.ts";

test("rounds half away from zero as the amount is written in decimal, not as binary floating point holds it", () => {
  expect([1.005, 2.675, 0.285, 19.99, 29.995, -1.005, -0.5 / 100, 0].map((value) => minorFromMajor(value, 2))).toEqual([101, 268, 29, 1999, 3000, -101, -1, 0]);
  expect([minorFromMajor(1200, 0), minorFromMajor(1.2345, 3), minorFromMajor(1.0005, 3)]).toEqual([1200, 1235, 1001]);
});

test("RevenueCat prices in minor units of their currency; codes that are not ISO 4217 and amounts that are not finite are null", () => {
  expect([toMinorUnits(4.995, "EUR"), toMinorUnits(1200, "JPY"), toMinorUnits(1.2345, "KWD"), toMinorUnits(1, "XXY"), toMinorUnits(Number.NaN, "USD")]).toEqual([500, 1200, 1235, null, null]);
  expect([minorDigits("USD"), minorDigits("JPY"), minorDigits("KWD")]).toEqual([2, 0, 3]);
});
