import { describe, expect, test } from "bun:test";
import { attachmentFilenameLengthMax, attachmentsMax, contentIdLengthMax, parseAttachments } from "../../../server/mail/compose/attachments.ts";
import { refusal, refused } from "./refusal.ts";

const allBytes = Buffer.from(Array.from({ length: 256 }, (_, index) => index));
const one = (attachment: Record<string, unknown>) => parseAttachments([attachment]);

describe("attachments", () => {
  test("content is decoded; the type is given or guessed from the filename; a content id makes it inline", () => {
    expect(
      parseAttachments([
        { filename: "all-bytes.bin", content: allBytes.toString("base64") },
        { filename: "Report 2026 – Q4.PDF", content: "JVBERi0=" },
        { filename: "notes", content: "" },
        { filename: "logo.png", content: "iVBORw==", content_type: "IMAGE/PNG", content_id: "logo@acme.com" },
        { filename: "data.csv", content: "YSxi", content_type: "application/vnd.ms-excel", content_id: "sheet" },
        { filename: "..hidden", content: "YQ==", content_type: null, content_id: null },
      ]),
    ).toEqual([
      { filename: "all-bytes.bin", content: allBytes, contentType: "application/octet-stream", contentId: null },
      { filename: "Report 2026 – Q4.PDF", content: Buffer.from("%PDF-"), contentType: "application/pdf", contentId: null },
      { filename: "notes", content: Buffer.alloc(0), contentType: "application/octet-stream", contentId: null },
      { filename: "logo.png", content: Buffer.from("89504e47", "hex"), contentType: "image/png", contentId: "logo@acme.com" },
      { filename: "data.csv", content: Buffer.from("a,b"), contentType: "application/vnd.ms-excel", contentId: "sheet" },
      { filename: "..hidden", content: Buffer.from("a"), contentType: "application/octet-stream", contentId: null },
    ]);
  });

  test("attachments must be an array of objects with known fields", () => {
    expect(refusal(() => parseAttachments({ filename: "a", content: "" }))).toEqual(refused("attachments", "invalid_type", "must be an array"));
    expect(refusal(() => parseAttachments(["YQ=="]))).toEqual(
      refused("attachments[0]", "invalid_type", "must be an object {filename, content, content_type?, content_id?}"),
    );
    // No path or URL: the service never reads its own files or fetches on a sender's behalf.
    expect(refusal(() => one({ filename: "passwd", content: "", path: "/etc/passwd" }))).toEqual(
      refused('attachments[0]["path"]', "unknown_field", "is not an attachment field"),
    );
  });

  test("filename: required, a bare file name, bounded", () => {
    expect(refusal(() => one({ content: "YQ==" }))).toEqual(refused("attachments[0].filename", "missing_field", "is required"));
    expect(refusal(() => one({ filename: 5, content: "YQ==" }))).toEqual(refused("attachments[0].filename", "invalid_type", "must be a string"));
    expect(refusal(() => one({ filename: " ", content: "YQ==" }))).toEqual(refused("attachments[0].filename", "invalid_value", "must not be empty"));
    for (const filename of ["../etc/passwd", "dir/file.txt", "C:\\Windows\\x.exe", "/abs"]) {
      expect(refusal(() => one({ filename, content: "YQ==" }))).toEqual(
        refused("attachments[0].filename", "invalid_value", "must be a file name, without / or \\"),
      );
    }
    for (const filename of [".", ".."]) {
      expect(refusal(() => one({ filename, content: "YQ==" }))).toEqual(refused("attachments[0].filename", "invalid_value", "must be a file name"));
    }
    const longest = `${"f".repeat(attachmentFilenameLengthMax - 4)}.txt`;
    expect(one({ filename: longest, content: "YQ==" })[0]!.filename).toBe(longest);
    expect(refusal(() => one({ filename: `f${longest}`, content: "YQ==" }))).toEqual(
      refused("attachments[0].filename", "too_long", "must be at most 255 characters"),
    );
  });

  test("content: strict base64 only", () => {
    const strict = "must be strict base64 (standard alphabet, padded, no whitespace)";
    expect(refusal(() => one({ filename: "a" }))).toEqual(refused("attachments[0].content", "missing_field", "is required"));
    expect(refusal(() => one({ filename: "a", content: [1, 2] }))).toEqual(
      refused("attachments[0].content", "invalid_type", "must be a base64 string"),
    );
    for (const content of ["YWJj\nZGVm", "YWJj ZGVm", "YWI", "YW=I", "Y===", "YWI-", "_w==", "YQ", "YR==", "QUJ=", "aGVsbG8=\r\n", "%0d%0a", "a"]) {
      expect(refusal(() => one({ filename: "a", content }))).toEqual(refused("attachments[0].content", "invalid_value", strict));
    }
  });

  test("content_type: a MIME type without parameters", () => {
    for (const contentType of ["image", "image/", "/png", "image/png; charset=x", "image /png", "image/pn g", "text/plain\u00e9", ""]) {
      expect(refusal(() => one({ filename: "a.png", content: "", content_type: contentType }))).toEqual(
        refused("attachments[0].content_type", "invalid_value", "must be a MIME type such as image/png, without parameters"),
      );
    }
    expect(refusal(() => one({ filename: "a.png", content: "", content_type: 1 }))).toEqual(
      refused("attachments[0].content_type", "invalid_type", "must be a string"),
    );
  });

  test("content_id: an id without angle brackets, unique, bounded", () => {
    const syntax = 'must be an id such as "logo" or "logo@acme.com", without angle brackets';
    for (const contentId of ["<logo>", "lo go", "a@b@c", "", "logo\u00e9", "lo\"go", "logo@"]) {
      expect(refusal(() => one({ filename: "a.png", content: "", content_id: contentId }))).toEqual(
        refused("attachments[0].content_id", "invalid_value", syntax),
      );
    }
    expect(
      refusal(() =>
        parseAttachments([
          { filename: "a.png", content: "", content_id: "logo" },
          { filename: "b.png", content: "", content_id: "logo" },
        ]),
      ),
    ).toEqual(refused("attachments[1].content_id", "duplicate", "another attachment has the same content id"));
    const longest = "c".repeat(contentIdLengthMax);
    expect(one({ filename: "a.png", content: "", content_id: longest })[0]!.contentId).toBe(longest);
    expect(refusal(() => one({ filename: "a.png", content: "", content_id: `${longest}c` }))).toEqual(
      refused("attachments[0].content_id", "too_long", "must be at most 255 characters"),
    );
  });

  test("50 attachments pass, 51 fail", () => {
    const fifty = Array.from({ length: attachmentsMax }, (_, index) => ({ filename: `f${index}.txt`, content: "YQ==" }));
    expect(parseAttachments(fifty)).toHaveLength(50);
    expect(refusal(() => parseAttachments([...fifty, { filename: "x.txt", content: "" }]))).toEqual(
      refused("attachments", "too_many", "at most 50 attachments; got 51"),
    );
  });
});
