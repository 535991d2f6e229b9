import { describe, expect, test } from "bun:test";
import QRCode from "qrcode";
import { QrCodeError, qrImage, qrMarginModules, qrPng, qrPngModulePx, qrSvg } from "../../../server/gateway/network/qr-image.ts";

// The shape of a Baileys pairing code: ref, noise key, identity key, adv secret, platform.
const pairingCode = `2@${"Q".repeat(88)},${"n".repeat(43)}=,${"i".repeat(43)}=,${"a".repeat(43)}=,1`;
const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function moduleCount(code: string): number {
  return QRCode.create(code, { errorCorrectionLevel: "M" }).modules.size;
}

function readPngHeader(png: Uint8Array) {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return {
    signature: [...png.subarray(0, 8)],
    chunk: new TextDecoder().decode(png.subarray(12, 16)),
    width: view.getUint32(16),
    height: view.getUint32(20),
  };
}

/** The svg element's attributes and the path that draws the dark modules, read with Bun's streaming parser. */
async function parseSvg(svg: string) {
  const found: { svg: Record<string, string>; paths: Record<string, string>[] } = { svg: {}, paths: [] };
  const attributes = (element: { attributes: IterableIterator<string[]> }) => Object.fromEntries([...element.attributes].map(([name, value]) => [name!, value!]));
  await new HTMLRewriter()
    .on("svg", { element: (element) => void (found.svg = attributes(element)) })
    .on("path", { element: (element) => void found.paths.push(attributes(element)) })
    .transform(new Response(svg))
    .text();
  return found;
}

/** Redraws the module matrix from the SVG path commands (M x y: start of a row's first run; m dx 0: skip; h n: n dark modules). */
function modulesFromPath(d: string, size: number, margin: number): boolean[] {
  const dark = new Array<boolean>(size * size).fill(false);
  let x = 0;
  let row = 0;
  for (const [, command, a, b] of d.matchAll(/([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?/g)) {
    const value = Number(a);
    if (command === "M") {
      x = value - margin;
      row = Number(b) - 0.5 - margin;
    } else if (command === "m") x += value;
    else {
      for (let i = 0; i < value; i++) dark[row * size + x + i] = true;
      x += value;
    }
  }
  return dark;
}

describe("QR images of pairing codes", () => {
  test("PNG: the PNG signature, then an IHDR as wide and high as the modules plus margins at the module size", async () => {
    const png = await qrPng(pairingCode);
    const side = (moduleCount(pairingCode) + 2 * qrMarginModules) * qrPngModulePx;
    expect(readPngHeader(png)).toEqual({ signature: pngSignature, chunk: "IHDR", width: side, height: side });
    expect(await qrImage(pairingCode, "png")).toEqual(png);
  });

  test("SVG: one svg element with a viewBox in modules, whose path redraws exactly the modules qrcode computed", async () => {
    const svg = await qrSvg(pairingCode);
    const size = moduleCount(pairingCode);
    const side = size + 2 * qrMarginModules;
    expect(svg.startsWith("<svg ")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    const parsed = await parseSvg(svg);
    expect(parsed.svg).toEqual({ xmlns: "http://www.w3.org/2000/svg", viewbox: `0 0 ${side} ${side}`, "shape-rendering": "crispEdges" });
    expect(parsed.paths.length).toBe(2);
    expect(parsed.paths[0]).toEqual({ fill: "#ffffff", d: `M0 0h${side}v${side}H0z` });
    const reference = QRCode.create(pairingCode, { errorCorrectionLevel: "M" }).modules;
    expect(modulesFromPath(parsed.paths[1]!.d!, size, qrMarginModules)).toEqual([...reference.data].map(Boolean));
    expect(await qrImage(pairingCode, "svg")).toBe(svg);
  });

  test("a pairing code is a version-10 symbol (57 modules, a 520 px PNG) at error correction M", async () => {
    const symbol = QRCode.create(pairingCode, { errorCorrectionLevel: "M" });
    expect({ version: symbol.version, modules: symbol.modules.size, pngWidth: readPngHeader(await qrPng(pairingCode)).width }).toEqual({ version: 10, modules: 57, pngWidth: 520 });
  });

  test("markup in the code is encoded as data, never written into the SVG", async () => {
    const svg = await qrSvg(`<script>alert(1)</script>"&'`);
    expect(svg.includes("script")).toBe(false);
    expect(svg.includes("&")).toBe(false);
  });

  test("input over the QR capacity is a clear error, for both formats", async () => {
    const tooLong = "x".repeat(3_000);
    const message = "cannot draw a QR code of 3000 characters at error correction M: The amount of data is too big to be stored in a QR Code";
    expect(qrPng(tooLong)).rejects.toThrow(new QrCodeError(message));
    expect(qrSvg(tooLong)).rejects.toThrow(new QrCodeError(message));
  });

  test("an empty or non-string code is refused", async () => {
    expect(qrPng("")).rejects.toThrow(new QrCodeError("nothing to draw: the pairing code is empty"));
    expect(qrSvg(undefined as unknown as string)).rejects.toThrow(new QrCodeError("nothing to draw: the pairing code is empty"));
  });
});
