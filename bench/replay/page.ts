// The typical page bench/replay records: a shop's product page as rrweb-snapshot serializes it
// (its node format: Document 0, DocumentType 1, Element 2, Text 3; whitespace text nodes between
// elements kept, as the browser has them). A nav, a heading, paragraphs of text, a search and
// sign-up form, a list of products with names, prices and buttons, a footer, and a style sheet
// inlined: 167 elements, 674 nodes with the text and whitespace, seeded. The nodes a recording acts on are returned with their ids.

/** rrweb-snapshot's serialized node. */
export type SerializedNode =
  | { type: 0; childNodes: SerializedNode[]; id: number }
  | { type: 1; name: string; publicId: string; systemId: string; id: number }
  | { type: 2; tagName: string; attributes: Record<string, string | boolean>; childNodes: SerializedNode[]; id: number }
  | { type: 3; textContent: string; id: number };

export interface TypicalPage {
  root: SerializedNode;
  nodeCount: number;
  /** Ids the recording uses: what is clicked, typed into, changed or added to. */
  ids: {
    html: number;
    body: number;
    links: number[];
    inputs: number[];
    buttons: number[];
    productList: number;
    products: number[];
    cartCount: number;
  };
  /** A new product's node, for a mutation that adds one (ids from `nextId`). */
  product(name: string, price: string): SerializedNode;
  /** The next unused node id (mutations take theirs from it). */
  nextId(): number;
}

const words = (
  "the of and to in is for on with that your our this you are as from can it be more by all new at or have free an will " +
  "about one day get best time shop order price size colour delivery returns quality cotton linen wool everyday classic fit " +
  "made sustainable stock offer week each team support help account basket checkout review customers rated stars"
).split(" ");

const productNames = ["Linen Shirt", "Wool Scarf", "Canvas Tote", "Denim Jacket", "Cotton Tee", "Rain Coat", "Knit Beanie", "Chino Trousers", "Leather Belt", "Trail Shoes", "Silk Tie", "Cord Skirt"];

/** A style sheet of about 4 KB, as rrweb inlines a `<style>` element's rules. */
function styleSheet(): string {
  const rules: string[] = [];
  for (const selector of ["body", "header", "nav", "nav a", "main", "h1", "h2", "p", "form", "label", "input", "button", ".products", ".card", ".card img", ".card h3", ".price", ".badge", "footer", "footer a"]) {
    rules.push(`${selector} { margin: 0 auto; padding: 8px 16px; font: 400 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2933; background: #ffffff; border-radius: 6px; }`);
    rules.push(`${selector}:hover { color: #0b5cad; text-decoration: underline; transition: color 120ms ease-in-out; }`);
  }
  rules.push("@media (max-width: 720px) { .products { grid-template-columns: repeat(2, minmax(0, 1fr)); } nav { display: none; } }");
  return rules.join("\n");
}

export function typicalPage(random: () => number): TypicalPage {
  let id = 0;
  const next = () => ++id;
  const sentence = (count: number) => {
    const picked = Array.from({ length: count }, () => words[Math.floor(random() * words.length)]!);
    return picked.join(" ").replace(/^./, (first) => first.toUpperCase()) + ".";
  };
  const text = (textContent: string): SerializedNode => ({ type: 3, textContent, id: next() });
  const element = (tagName: string, attributes: Record<string, string | boolean>, children: (() => SerializedNode)[] = []): SerializedNode => {
    const node = { type: 2 as const, tagName, attributes, childNodes: [] as SerializedNode[], id: next() };
    // Indentation between elements is a text node in the DOM, and rrweb serializes it.
    for (const child of children) node.childNodes.push(text("\n    "), child());
    if (children.length > 0) node.childNodes.push(text("\n  "));
    return node;
  };
  const ids: TypicalPage["ids"] = { html: 0, body: 0, links: [], inputs: [], buttons: [], productList: 0, products: [], cartCount: 0 };
  const link = (href: string, label: string) => () => {
    const node = element("a", { href, class: "nav-link" }, [() => text(label)]);
    ids.links.push(node.id);
    return node;
  };
  const input = (type: string, name: string) => () => {
    // Inputs are masked at the source: rrweb records their value as asterisks.
    const node = element("input", { type, name, placeholder: name, value: "****", autocomplete: "off" });
    ids.inputs.push(node.id);
    return node;
  };
  const button = (label: string, attributes: Record<string, string> = {}) => () => {
    const node = element("button", { type: "button", class: "button", ...attributes }, [() => text(label)]);
    ids.buttons.push(node.id);
    return node;
  };
  const product = (name: string, price: string) => {
    const slug = name.toLowerCase().replace(/ /g, "-");
    const node = element("li", { class: "card", "data-sku": `sku-${slug}` }, [
      () => element("img", { src: `https://shop.example.com/images/${slug}-480w.webp`, alt: name, width: "240", height: "240", loading: "lazy" }),
      () => element("h3", {}, [() => text(name)]),
      () => element("span", { class: "price" }, [() => text(price)]),
      button("Add to basket", { "data-sku": `sku-${slug}` }),
    ]);
    return node;
  };
  const price = () => `£${(10 + Math.floor(random() * 190)).toFixed(0)}.${random() < 0.5 ? "00" : "99"}`;
  const root: SerializedNode = {
    type: 0,
    id: next(),
    childNodes: [
      { type: 1, name: "html", publicId: "", systemId: "", id: next() },
      (() => {
        const html = element("html", { lang: "en" }, [
          () => element("head", {}, [
            () => element("meta", { charset: "utf-8" }),
            () => element("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
            () => element("title", {}, [() => text("Autumn collection | Example Shop")]),
            () => element("link", { rel: "icon", href: "https://shop.example.com/favicon.ico" }),
            () => element("style", {}, [() => text(styleSheet())]),
          ]),
          () => {
            const body = element("body", { class: "page page-collection" }, [
              () => element("header", { class: "site-header" }, [
                () => element("nav", { "aria-label": "Main" }, ["Home", "Women", "Men", "Kids", "Sale", "Journal", "Help"].map((label) => link(`/${label.toLowerCase()}`, label))),
                () => {
                  const badge = element("span", { class: "badge", "aria-live": "polite" }, [() => text("0")]);
                  ids.cartCount = (badge as { childNodes: SerializedNode[] }).childNodes[1]!.id;
                  return element("a", { href: "/basket", class: "basket" }, [() => text("Basket"), () => badge]);
                },
              ]),
              () => element("main", { id: "content" }, [
                () => element("h1", {}, [() => text("Autumn collection")]),
                ...Array.from({ length: 4 }, () => () => element("p", {}, [() => text(Array.from({ length: 3 }, () => sentence(10 + Math.floor(random() * 12))).join(" "))])),
                () => element("h2", {}, [() => text("Stay in touch")]),
                () => element("form", { action: "/subscribe", method: "post", class: "subscribe" }, [
                  () => element("label", { for: "email" }, [() => text("Email")]),
                  input("email", "email"),
                  () => element("label", { for: "name" }, [() => text("Name")]),
                  input("text", "name"),
                  input("text", "postcode"),
                  input("search", "search"),
                  input("tel", "phone"),
                  button("Subscribe"),
                ]),
                () => element("h2", {}, [() => text("New in")]),
                () => {
                  const list = element("ul", { class: "products" }, Array.from({ length: 24 }, (_, at) => () => {
                    const node = product(`${productNames[at % productNames.length]} ${at + 1}`, price());
                    ids.products.push(node.id);
                    return node;
                  }));
                  ids.productList = list.id;
                  return list;
                },
              ]),
              () => element("footer", { class: "site-footer" }, [
                ...["About", "Careers", "Stores", "Delivery", "Returns", "Privacy", "Cookies", "Terms"].map((label) => link(`/${label.toLowerCase()}`, label)),
                () => element("p", {}, [() => text("© 2026 Example Shop Ltd. All prices include VAT.")]),
              ]),
            ]);
            ids.body = body.id;
            return body;
          },
        ]);
        ids.html = html.id;
        return html;
      })(),
    ],
  };
  return { root, nodeCount: id, ids, product, nextId: next };
}
