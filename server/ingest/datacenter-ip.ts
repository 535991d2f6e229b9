// Datacenter address ranges: a CIDR list parsed once into sorted, merged numeric ranges, so
// the per-request lookup is a binary search. IPv4 addresses are parsed straight from the
// string into a number and IPv6 addresses into a reused 4 x 32-bit scratch buffer: a lookup
// allocates nothing. IPv4-mapped IPv6 addresses (::ffff:1.2.3.4) are looked up as IPv4.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The list that ships with the service (DATACENTER_RANGES_FILE replaces it). */
export const bundledDatacenterRangesFile = fileURLToPath(new URL("./datacenter-ranges.txt", import.meta.url));

/** A ranges file that cannot be read or has a line that is not a CIDR; the message names both. */
export class DatacenterRangesError extends Error {}

const maxAddressLength = 45; // the longest IPv6 text form: 6 groups and an IPv4 tail

// Scratch buffers of the IPv6 parser; JavaScript is single-threaded, so one set suffices.
const groups = new Uint16Array(8);
const words = new Uint32Array(4);

const hexDigit = (code: number): number => {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
};

/** Dotted-quad IPv4 in s[from, to) as an unsigned 32-bit number, or -1. Leading zeros are refused. */
function parseIPv4(s: string, from: number, to: number): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = from; i < to; i++) {
    const code = s.charCodeAt(i);
    if (code >= 48 && code <= 57) {
      if (digits > 0 && part === 0) return -1;
      part = part * 10 + (code - 48);
      if (part > 255) return -1;
      digits++;
    } else if (code === 46 && digits > 0 && dots < 3) {
      value = value * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else {
      return -1;
    }
  }
  return dots === 3 && digits > 0 ? value * 256 + part : -1;
}

/** IPv6 in s[from, to) into `words` (most significant first); false when it is not one. */
function parseIPv6(s: string, from: number, to: number): boolean {
  let count = 0;
  let gap = -1;
  let i = from;
  if (to - from < 2) return false;
  if (s.charCodeAt(i) === 58) {
    if (s.charCodeAt(i + 1) !== 58) return false;
    gap = 0;
    i += 2;
  }
  while (i < to) {
    const start = i;
    let value = 0;
    let digits = 0;
    while (i < to) {
      const digit = hexDigit(s.charCodeAt(i));
      if (digit < 0) break;
      if (++digits > 4) return false;
      value = value * 16 + digit;
      i++;
    }
    if (i < to && s.charCodeAt(i) === 46) {
      // An IPv4 tail takes the last two groups.
      const v4 = parseIPv4(s, start, to);
      if (v4 < 0 || count > 6) return false;
      groups[count++] = Math.floor(v4 / 0x10000);
      groups[count++] = v4 % 0x10000;
      i = to;
      break;
    }
    if (digits === 0 || count === 8) return false;
    groups[count++] = value;
    if (i === to) break;
    if (s.charCodeAt(i) !== 58 || ++i === to) return false;
    if (s.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = count;
      i++;
    }
  }
  if (gap >= 0) {
    if (count > 7) return false;
    const tail = count - gap;
    for (let k = 1; k <= tail; k++) groups[8 - k] = groups[count - k]!;
    for (let k = gap; k < 8 - tail; k++) groups[k] = 0;
  } else if (count !== 8) {
    return false;
  }
  for (let k = 0; k < 4; k++) words[k] = groups[2 * k]! * 0x10000 + groups[2 * k + 1]!;
  return true;
}

const isMappedIPv4 = (w: ArrayLike<number>) => w[0] === 0 && w[1] === 0 && w[2] === 0xffff;

/** -1, 0 or 1 as the 4 words at a[ai] compare with those at b[bi]. */
function compare128(a: ArrayLike<number>, ai: number, b: ArrayLike<number>, bi: number): number {
  for (let k = 0; k < 4; k++) {
    const x = a[ai + k]!;
    const y = b[bi + k]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

const isTopOfSpace = (w: number[]) => w.every((word) => word === 0xffffffff);

/** The 4 words one past `w` (callers rule out the top of the space, where this would wrap). */
function plusOne(w: number[]): number[] {
  const next = [...w];
  for (let k = 3; k >= 0; k--) {
    next[k] = (next[k]! + 1) >>> 0;
    if (next[k] !== 0) break;
  }
  return next;
}

interface Range4 {
  start: number;
  end: number;
}
interface Range6 {
  start: number[];
  end: number[];
}

/** A CIDR (or a bare address, meaning one host) as a range, or the reason it is not one. */
function parseCidr(text: string): { v4: Range4 } | { v6: Range6 } | string {
  const slash = text.indexOf("/");
  const address = slash < 0 ? text : text.slice(0, slash);
  const lengthText = slash < 0 ? null : text.slice(slash + 1);
  const isV6 = address.includes(":");
  const bits = isV6 ? 128 : 32;
  const length = lengthText === null ? bits : /^\d{1,3}$/.test(lengthText) ? Number(lengthText) : NaN;
  if (!(length >= 0 && length <= bits)) return `the prefix length must be 0 to ${bits}`;

  if (!isV6) {
    const start = parseIPv4(address, 0, address.length);
    if (start < 0) return "not an IPv4 or IPv6 address";
    const size = 2 ** (32 - length);
    if (start % size !== 0) return `bits after the first ${length} are set`;
    return { v4: { start, end: start + size - 1 } };
  }
  if (!parseIPv6(address, 0, address.length)) return "not an IPv4 or IPv6 address";
  const start = Array.from(words);
  const end = [...start];
  for (let k = 0; k < 4; k++) {
    const hostBits = Math.min(32, Math.max(0, 32 * (k + 1) - length));
    const hostMask = hostBits === 32 ? 0xffffffff : 2 ** hostBits - 1;
    if ((start[k]! & hostMask) >>> 0 !== 0) return `bits after the first ${length} are set`;
    end[k] = (start[k]! | hostMask) >>> 0;
  }
  // ::ffff:a.b.c.d/n is an IPv4 range written in IPv6.
  if (isMappedIPv4(start) && length >= 96) return { v4: { start: start[3]!, end: end[3]! } };
  return { v6: { start, end } };
}

export class DatacenterRanges {
  private constructor(
    /** Sorted, non-overlapping, non-adjacent IPv4 range starts and (inclusive) ends. */
    private readonly v4Starts: Uint32Array,
    private readonly v4Ends: Uint32Array,
    /** IPv6 ranges likewise, 8 words each: start (4, most significant first), then end (4). */
    private readonly v6: Uint32Array,
  ) {}

  /**
   * Lines of a ranges file: one CIDR (or bare address) per line, `#` starts a comment, blank
   * lines are ignored. Throws DatacenterRangesError naming `source` and the line.
   */
  static parse(lines: readonly string[], source = "datacenter ranges"): DatacenterRanges {
    const v4: Range4[] = [];
    const v6: Range6[] = [];
    lines.forEach((line, index) => {
      const hash = line.indexOf("#");
      const text = (hash < 0 ? line : line.slice(0, hash)).trim();
      if (text === "") return;
      const parsed = parseCidr(text);
      if (typeof parsed === "string") {
        throw new DatacenterRangesError(`${source}, line ${index + 1}: "${text}" is not a CIDR (${parsed})`);
      }
      if ("v4" in parsed) v4.push(parsed.v4);
      else v6.push(parsed.v6);
    });

    v4.sort((a, b) => a.start - b.start);
    const merged4: Range4[] = [];
    for (const range of v4) {
      const last = merged4.at(-1);
      if (last && range.start <= last.end + 1) last.end = Math.max(last.end, range.end);
      else merged4.push({ ...range });
    }

    v6.sort((a, b) => compare128(a.start, 0, b.start, 0));
    const merged6: Range6[] = [];
    for (const range of v6) {
      const last = merged6.at(-1);
      const touches = last && (isTopOfSpace(last.end) || compare128(range.start, 0, plusOne(last.end), 0) <= 0);
      if (!last || !touches) merged6.push({ start: [...range.start], end: [...range.end] });
      else if (compare128(range.end, 0, last.end, 0) > 0) last.end = range.end;
    }

    return new DatacenterRanges(
      Uint32Array.from(merged4, (r) => r.start),
      Uint32Array.from(merged4, (r) => r.end),
      Uint32Array.from(merged6.flatMap((r) => [...r.start, ...r.end])),
    );
  }

  /** Reads and parses a ranges file; an unreadable file or a bad line throws DatacenterRangesError. */
  static load(path: string): DatacenterRanges {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      throw new DatacenterRangesError(`cannot read ${path}: ${(error as Error).message}`);
    }
    return DatacenterRanges.parse(text.split(/\r?\n/), path);
  }

  /** Merged ranges held, per family. */
  get size(): { ipv4: number; ipv6: number } {
    return { ipv4: this.v4Starts.length, ipv6: this.v6.length / 8 };
  }

  /** Whether `ip` (IPv4, IPv6 or IPv4-mapped IPv6 text) is in a range; anything malformed is not. */
  contains(ip: string): boolean {
    const length = ip.length;
    if (length === 0 || length > maxAddressLength) return false;
    if (ip.indexOf(":") < 0) {
      const value = parseIPv4(ip, 0, length);
      return value >= 0 && this.containsV4(value);
    }
    if (!parseIPv6(ip, 0, length)) return false;
    return isMappedIPv4(words) ? this.containsV4(words[3]!) : this.containsV6();
  }

  private containsV4(value: number): boolean {
    const starts = this.v4Starts;
    let low = 0;
    let high = starts.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (starts[middle]! <= value) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found >= 0 && value <= this.v4Ends[found]!;
  }

  /** The address in `words`. */
  private containsV6(): boolean {
    const ranges = this.v6;
    let low = 0;
    let high = ranges.length / 8 - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if (compare128(ranges, middle * 8, words, 0) <= 0) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found >= 0 && compare128(words, 0, ranges, found * 8 + 4) <= 0;
  }
}

let bundled: DatacenterRanges | null = null;

/** The ranges of `path`, or the bundled list when it is null (parsed once per process). */
export function loadDatacenterRanges(path: string | null): DatacenterRanges {
  if (path !== null) return DatacenterRanges.load(path);
  bundled ??= DatacenterRanges.load(bundledDatacenterRangesFile);
  return bundled;
}
