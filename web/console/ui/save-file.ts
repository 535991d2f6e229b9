// Hands a file made in the page (a CSV, generated code) to the browser's downloads, under a
// name, through a short-lived object URL.

/** How long the object URL outlives the click: the download holds its own copy once started. */
const objectUrlLifeMs = 60_000;

export function saveFile(body: Blob, fileName: string): void {
  const url = URL.createObjectURL(body);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), objectUrlLifeMs);
}
