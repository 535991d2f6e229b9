// A pairing code drawn as a QR code (PNG or SVG) for a person to scan with the phone.
import QRCode from "qrcode";

const errorCorrectionLevel = "M";
const marginModules = 2;
const pngWidthPx = 320;

export async function qrImage(code: string, format: "png" | "svg"): Promise<Uint8Array | string> {
  if (format === "svg") return QRCode.toString(code, { type: "svg", errorCorrectionLevel, margin: marginModules });
  return new Uint8Array(await QRCode.toBuffer(code, { type: "png", errorCorrectionLevel, margin: marginModules, width: pngWidthPx }));
}
