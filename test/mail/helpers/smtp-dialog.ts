// A bare SMTP client over a TCP socket, for the protocol's edges a real client smooths over
// (SIZE at MAIL FROM, the exact byte count of DATA, the reply to each command as sent).
import { connect, type Socket } from "node:net";

export class SmtpDialog {
  private buffered = "";
  private waiting: (() => void) | null = null;

  private constructor(
    private readonly socket: Socket,
    /** Replies not yet read, in order. */
    private readonly replies: string[] = [],
  ) {
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      this.buffered += chunk;
      // A reply ends with a line `ddd text` (its earlier lines are `ddd-text`).
      let match: RegExpExecArray | null;
      while ((match = /^((?:\d{3}-[^\r\n]*\r\n)*\d{3}(?: [^\r\n]*)?\r\n)/.exec(this.buffered))) {
        this.replies.push(match[1]!.replace(/\r\n$/, "").replaceAll("\r\n", "\n"));
        this.buffered = this.buffered.slice(match[1]!.length);
      }
      this.waiting?.();
    });
    socket.on("close", () => this.waiting?.());
  }

  static async open(port: number): Promise<{ dialog: SmtpDialog; greeting: string }> {
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    const dialog = new SmtpDialog(socket);
    return { dialog, greeting: await dialog.reply() };
  }

  /** The next reply (lines joined with \n); "" when the server closed the connection first. */
  async reply(): Promise<string> {
    while (this.replies.length === 0) {
      if (this.socket.destroyed || this.socket.readableEnded) return "";
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = null;
    }
    return this.replies.shift()!;
  }

  async command(line: string): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  /** DATA, then `message` as given (it must end with CRLF and have no line starting with a dot), then the final dot. */
  async data(message: Buffer): Promise<{ start: string; end: string }> {
    const start = await this.command("DATA");
    if (!start.startsWith("354")) return { start, end: "" };
    this.socket.write(message);
    this.socket.write(".\r\n");
    return { start, end: await this.reply() };
  }

  close(): void {
    this.socket.destroy();
  }
}
