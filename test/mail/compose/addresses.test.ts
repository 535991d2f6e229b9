import { describe, expect, test } from "bun:test";
import {
  addressLengthMax,
  displayNameLengthMax,
  domainLabelLengthMax,
  localPartLengthMax,
  mailboxInputLengthMax,
  parseMailbox,
  parseMailboxList,
  toAddressesMax,
} from "../../../server/mail/compose/addresses.ts";
import { refusal } from "./refusal.ts";


const invalid = (message: string, field = "to") => ({ status: 422, code: "invalid_address", field, message: `${field}: ${message}` });

describe("parseMailbox accepts RFC 5322 mailboxes", () => {
  const cases: Array<[string, { name: string | null; address: string; domain: string }]> = [
    ["jane@example.com", { name: null, address: "jane@example.com", domain: "example.com" }],
    ["  jane@example.com  ", { name: null, address: "jane@example.com", domain: "example.com" }],
    ["<jane@example.com>", { name: null, address: "jane@example.com", domain: "example.com" }],
    ["Acme <billing@acme.com>", { name: "Acme", address: "billing@acme.com", domain: "acme.com" }],
    ["Acme   Billing<billing@acme.com>", { name: "Acme Billing", address: "billing@acme.com", domain: "acme.com" }],
    ["John Q. Public <john.q.public@example.com>", { name: "John Q. Public", address: "john.q.public@example.com", domain: "example.com" }],
    ['"Acme, Inc." <billing@acme.com>', { name: "Acme, Inc.", address: "billing@acme.com", domain: "acme.com" }],
    ['"Say \\"hi\\" \\\\ o/" <a@acme.com>', { name: 'Say "hi" \\ o/', address: "a@acme.com", domain: "acme.com" }],
    ['"" <a@acme.com>', { name: null, address: "a@acme.com", domain: "acme.com" }],
    ["Zoë Ångström <zoe@example.se>", { name: "Zoë Ångström", address: "zoe@example.se", domain: "example.se" }],
    ["Jane.Doe+tag@EXAMPLE.Com", { name: null, address: "Jane.Doe+tag@example.com", domain: "example.com" }],
    ["o'brien!#$%&*/=?^_`{|}~-@example.com", { name: null, address: "o'brien!#$%&*/=?^_`{|}~-@example.com", domain: "example.com" }],
    ["kontakt@Bücher.example", { name: null, address: "kontakt@xn--bcher-kva.example", domain: "xn--bcher-kva.example" }],
    ["info@ＥＸＡＭＰＬＥ.com", { name: null, address: "info@example.com", domain: "example.com" }],
    ["a@sub-domain.example.co.uk", { name: null, address: "a@sub-domain.example.co.uk", domain: "sub-domain.example.co.uk" }],
    ["Hundred%0d%0aPercent <a@acme.com>", { name: "Hundred%0d%0aPercent", address: "a@acme.com", domain: "acme.com" }],
  ];
  for (const [input, expected] of cases) {
    test(JSON.stringify(input), () => expect(parseMailbox(input, "to")).toEqual(expected));
  }
});

describe("parseMailbox refuses what is not a mailbox, naming the field", () => {
  const cases: Array<[unknown, ReturnType<typeof invalid>]> = [
    ["", invalid("must not be empty")],
    ["   ", invalid("must not be empty")],
    ["jane", invalid("the address has no @")],
    ["@example.com", invalid("the local part (before @) is empty")],
    ["jane@", invalid("the domain is not a valid host name")],
    ["jane@@example.com", invalid("the local part (before @) is not a valid dot-atom")],
    [".jane@example.com", invalid("the local part (before @) is not a valid dot-atom")],
    ["jane.@example.com", invalid("the local part (before @) is not a valid dot-atom")],
    ["ja..ne@example.com", invalid("the local part (before @) is not a valid dot-atom")],
    ["ja ne@example.com", invalid("the local part (before @) is not a valid dot-atom")],
    ['"ja ne"@example.com', invalid("quoted local parts are not supported")],
    ['Jane <"ja ne"@example.com>', invalid("quoted local parts are not supported")],
    ["jöhn@example.com", invalid("non-ASCII local parts (SMTPUTF8) are not supported")],
    ["jane@[192.0.2.1]", invalid("domain literals are not supported")],
    ["jane@localhost", invalid("the domain needs at least two labels")],
    ["jane@192.0.2.1", invalid("the domain is an IP address, not a host name")],
    ["jane@example..com", invalid("the domain is not a valid host name")],
    ["jane@example.com.", invalid("the domain is not a valid host name")],
    ["jane@-example.com", invalid("the domain is not a valid host name")],
    ["jane@exa_mple.com", invalid("the domain is not a valid host name")],
    ["jane@exa mple.com", invalid("the domain is not a valid host name")],
    ["a@example.com, b@example.com", invalid("one address per string: give several addresses as an array")],
    ["Acme, Inc. <a@acme.com>", invalid('the display name contains ",": put the name in double quotes')],
    ["Acme (Billing) <a@acme.com>", invalid('the display name contains "(": put the name in double quotes')],
    ["a@b.com <a@acme.com>", invalid('the display name contains "@": put the name in double quotes')],
    ['Acme "Billing" <a@acme.com>', invalid('the display name contains "\\"": put the name in double quotes')],
    ["Acme <a@acme.com", invalid("the address must end with >")],
    ["Acme <a@acme.com> trailing", invalid("the address must end with >")],
    ["Acme <<a@acme.com>>", invalid("more than one <address>")],
    ['"Acme <a@acme.com>', invalid("the quoted display name is not closed")],
    ['"Acme\\" <a@acme.com>', invalid("the quoted display name is not closed")],
    ['"Acme" a@acme.com', invalid("a quoted display name must be followed by <address>")],
  ];
  for (const [input, expected] of cases) {
    test(JSON.stringify(input), () => expect(refusal(() => parseMailbox(input, "to"))).toEqual(expected));
  }
  test("a value that is not a string", () => {
    for (const input of [undefined, null, 42, { address: "a@acme.com" }, ["a@acme.com"]]) {
      expect(refusal(() => parseMailbox(input, "from"))).toEqual({ status: 422, code: "invalid_type", field: "from", message: "from: must be a string" });
    }
  });
});

describe("parseMailbox length limits at their edges", () => {
  const tooLong = (message: string) => ({ status: 422, code: "too_long", field: "to", message: `to: ${message}` });
  const domainOf = (length: number): string => {
    const labels: string[] = [];
    let remaining = length - 4; // ".com"
    while (remaining > 0) {
      const label = Math.min(domainLabelLengthMax, remaining - (labels.length ? 1 : 0));
      labels.push("d".repeat(label));
      remaining -= label + (labels.length > 1 ? 1 : 0);
    }
    return `${labels.join(".")}.com`;
  };

  test("the local part: 64 characters pass, 65 fail", () => {
    const local = "l".repeat(localPartLengthMax);
    expect(parseMailbox(`${local}@example.com`, "to")).toEqual({ name: null, address: `${local}@example.com`, domain: "example.com" });
    expect(refusal(() => parseMailbox(`${local}l@example.com`, "to"))).toEqual(tooLong("the local part must be at most 64 characters"));
  });

  test("the whole address: 254 characters pass, 255 fail", () => {
    const local = "l".repeat(localPartLengthMax);
    const longest = `${local}@${domainOf(addressLengthMax - localPartLengthMax - 1)}`;
    expect(longest.length).toBe(254);
    expect(parseMailbox(longest, "to").address).toBe(longest);
    const tooLongAddress = `${local}@${domainOf(addressLengthMax - localPartLengthMax)}`;
    expect(tooLongAddress.length).toBe(255);
    expect(refusal(() => parseMailbox(tooLongAddress, "to"))).toEqual(tooLong("the address must be at most 254 characters"));
  });

  test("a domain label: 63 characters pass, 64 fail", () => {
    expect(parseMailbox(`a@${"d".repeat(63)}.com`, "to").domain).toBe(`${"d".repeat(63)}.com`);
    expect(refusal(() => parseMailbox(`a@${"d".repeat(64)}.com`, "to"))).toEqual(invalid("the domain is not a valid host name"));
  });

  test("the display name: 256 characters pass, 257 fail, counted in code points", () => {
    const name = "😀".repeat(displayNameLengthMax);
    expect(parseMailbox(`"${name}" <a@acme.com>`, "to")).toEqual({ name, address: "a@acme.com", domain: "acme.com" });
    expect(refusal(() => parseMailbox(`"${name}x" <a@acme.com>`, "to"))).toEqual(
      tooLong("the display name must be at most 256 characters"),
    );
  });

  test("the raw input is bounded before any parsing", () => {
    const longest = `"${"n".repeat(mailboxInputLengthMax - 15)}" <a@acme.com>`;
    expect(longest.length).toBe(mailboxInputLengthMax);
    expect(refusal(() => parseMailbox(longest, "to"))).toEqual(tooLong("the display name must be at most 256 characters"));
    expect(refusal(() => parseMailbox(`${longest} `, "to"))).toEqual(tooLong(`must be at most ${mailboxInputLengthMax} characters`));
  });
});

describe("parseMailboxList", () => {
  test("a string is one mailbox; an array names each element's index", () => {
    expect(parseMailboxList("a@acme.com", "cc", 50)).toEqual([{ name: null, address: "a@acme.com", domain: "acme.com" }]);
    expect(parseMailboxList(["a@acme.com", "B <b@acme.com>"], "cc", 50)).toEqual([
      { name: null, address: "a@acme.com", domain: "acme.com" },
      { name: "B", address: "b@acme.com", domain: "acme.com" },
    ]);
    expect(refusal(() => parseMailboxList(["a@acme.com", "nope"], "cc", 50))).toEqual(invalid("the address has no @", "cc[1]"));
    expect(refusal(() => parseMailboxList("nope", "cc", 50))).toEqual(invalid("the address has no @", "cc"));
    expect(refusal(() => parseMailboxList(["a@acme.com", 7], "cc", 50))).toEqual({
      status: 422,
      code: "invalid_type",
      field: "cc[1]",
      message: "cc[1]: must be a string",
    });
    expect(refusal(() => parseMailboxList({ 0: "a@acme.com" }, "cc", 50))).toEqual({
      status: 422,
      code: "invalid_type",
      field: "cc",
      message: "cc: must be a string or an array of strings",
    });
  });

  test("exactly the maximum passes, one more fails", () => {
    const addresses = Array.from({ length: toAddressesMax }, (_, index) => `r${index}@example.com`);
    expect(parseMailboxList(addresses, "to", toAddressesMax).map((mailbox) => mailbox.address)).toEqual(addresses);
    expect(refusal(() => parseMailboxList([...addresses, "one@more.com"], "to", toAddressesMax))).toEqual({
      status: 422,
      code: "too_many",
      field: "to",
      message: "to: at most 50 addresses; got 51",
    });
  });
});
