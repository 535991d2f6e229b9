// A pairing code drawn as a QR code for a person to scan with the phone (PNG for the API's image
// answer and the console, SVG where a page scales it). Error correction M is what WhatsApp Web
// itself uses for its pairing codes: a pairing code (~240 characters) stays a readable version-10
// symbol while tolerating a screen's glare.
import QRCode from "qrcode";

/** The quiet zone around the symbol, in modules; 4 is what the QR standard requires for reliable scanning. */
export const qrMarginModules = 4;
/** Pixels per module in the PNG: a pairing code's 57 modules plus margins come out near 520 px, easy to scan off a screen. */
export const qrPngModulePx = 8;
export const qrErrorCorrectionLevel = "M";

export class QrCodeError extends Error {
  override readonly name = "QrCodeError";
}

export function qrPng(code: string): Promise<Uint8Array> {
  return draw(code, async () => new Uint8Array(await QRCode.toBuffer(code, { type: "png", errorCorrectionLevel: qrErrorCorrectionLevel, margin: qrMarginModules, scale: qrPngModulePx })));
}

/** An SVG whose viewBox counts modules (one unit per module, margins included): it scales to any size without blur. */
export function qrSvg(code: string): Promise<string> {
  return draw(code, () => QRCode.toString(code, { type: "svg", errorCorrectionLevel: qrErrorCorrectionLevel, margin: qrMarginModules }));
}

export function qrImage(code: string, format: "png"): Promise<Uint8Array>;
export function qrImage(code: string, format: "svg"): Promise<string>;
export function qrImage(code: string, format: "png" | "svg"): Promise<Uint8Array | string> {
  return format === "png" ? qrPng(code) : qrSvg(code);
}

async function draw<T>(code: string, render: () => Promise<T>): Promise<T> {
  if (typeof code !== "string" || code === "") throw new QrCodeError("nothing to draw: the pairing code is empty");
  try {
    return await render();
  } catch (error) {
    // qrcode says "The amount of data is too big to be stored in a QR Code"; say which input and how long.
    throw new QrCodeError(`cannot draw a QR code of ${code.length} characters at error correction ${qrErrorCorrectionLevel}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
