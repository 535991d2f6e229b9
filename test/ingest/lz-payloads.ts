// lz-string payloads built bit by bit for tests: a run of one character written with the
// format's own growth (each code names the previous entry plus one character), so a few
// kilobytes stand for any length. Building such a run with lz-string's encoder would take
// seconds per 20 MB; this takes microseconds.

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const nextIsByte = 0;
const endOfStream = 2;

/** `character` (one byte) `length` times, as lz-string's compressToBase64 form. */
export function lzRepeatedTextPayload(character: string, length: number): string {
  const bits: number[] = [];
  const write = (value: number, width: number) => {
    for (let bit = 0; bit < width; bit++) bits.push(Math.floor(value / 2 ** bit) % 2);
  };
  // The first code: a literal, two bits wide. The dictionary then holds codes 0-3.
  write(nextIsByte, 2);
  write(character.charCodeAt(0), 8);
  let size = 4;
  let width = 3;
  let untilWider = 4;
  const added = () => {
    size++;
    if (--untilWider === 0) untilWider = 2 ** width++;
  };
  /** Entry index of the run of n characters (n >= 2), made by the nth - 1 growing code. */
  const runEntry: number[] = [];
  let written = 1;
  let run = 1;
  while (written + run + 1 <= length) {
    // The code not in the dictionary yet: the previous output plus its first character.
    runEntry[run + 1] = size;
    write(size, width);
    added();
    run++;
    written += run;
  }
  const rest = length - written;
  if (rest === 1) write(3, width);
  else if (rest > 1) write(runEntry[rest]!, width);
  if (rest > 0) added();
  write(endOfStream, width);
  while (bits.length % 6 !== 0) bits.push(0);
  let payload = "";
  for (let at = 0; at < bits.length; at += 6) {
    let value = 0;
    for (let bit = 0; bit < 6; bit++) value = value * 2 + bits[at + bit]!;
    payload += alphabet[value];
  }
  return payload + "=".repeat((4 - (payload.length % 4)) % 4);
}
