// The emails the benchmark sends, seeded so every run and every baseline sends the same bytes:
// from the tenant's verified domain to one recipient at the sink's domain, a subject, about
// 2 KB of HTML (a receipt: greeting, order lines, a footer) and one tag, as a transactional
// send looks.
import { mulberry32 } from "../ingest/generator.ts";

export const senderDomain = "bench-sender.test";
export const recipientDomain = "bench-recipient.test";
export const recipientMx = "mx.bench-recipient.test";
/** Distinct recipients the emails go to in turn. */
const recipientsCount = 1_000;
const orderLinesMin = 8;
const orderLinesSpread = 5;


const products = ["Walnut desk organiser", "Linen tote bag", "Ceramic pour-over set", "Wool throw blanket", "Brass desk lamp", "Recycled notebook (A5)", "Cork yoga mat", "Glass water bottle"];

export interface SendBody {
  from: string;
  to: string[];
  subject: string;
  html: string;
  tags: { name: string; value: string }[];
}

function receiptHtml(random: () => number, order: number): string {
  const lines = orderLinesMin + Math.floor(random() * orderLinesSpread);
  const rows = Array.from({ length: lines }, () => {
    const product = products[Math.floor(random() * products.length)]!;
    const quantity = 1 + Math.floor(random() * 3);
    const price = (5 + random() * 95).toFixed(2);
    return `<tr><td style="padding:4px 8px">${product}</td><td style="padding:4px 8px">${quantity}</td><td style="padding:4px 8px;text-align:right">$${price}</td></tr>`;
  });
  return `<!doctype html><html><body style="font-family:Arial,sans-serif;color:#222"><h1 style="font-size:20px">Thanks for your order #${order}</h1><p>Hi there, we have received your order and are getting it ready. You will get another email when it ships.</p><table style="border-collapse:collapse;width:100%">${rows.join("")}</table><p style="color:#666;font-size:12px">You receive this email because you placed an order with Bench Shop. Questions? Reply to this email.</p></body></html>`;
}

/** `count` send bodies, the i-th to recipient i mod 1,000. */
export function sendBodies(seed: number, count: number): SendBody[] {
  const random = mulberry32(seed);
  return Array.from({ length: count }, (_, at) => ({
    from: `Bench Shop <orders@${senderDomain}>`,
    to: [`customer${at % recipientsCount}@${recipientDomain}`],
    subject: `Your order #${100_000 + at} is confirmed`,
    html: receiptHtml(random, 100_000 + at),
    tags: [{ name: "category", value: "receipt" }],
  }));
}
