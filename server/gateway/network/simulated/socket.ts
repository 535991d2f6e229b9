// The gateway-facing WebSocket: one network session per connection. Frames are checked here
// and handed to the network state; a malformed send is refused (permanently: repeating it
// cannot help), any other malformed frame ends the connection with a protocol error.
import type { WebSocketHandler } from "bun";
import type { SimulatedNetworkState } from "./network-state.ts";
import type { Session } from "./phones.ts";
import { closeCodes } from "./protocol.ts";
import { clientFrame, clientFrameHeader, requestId, WireShapeError } from "./wire-shapes.ts";

export interface SocketData {
  session: Session | null;
}

/** WebSocket close reasons are limited to 123 bytes. */
const closeReasonCharsMax = 120;

export function socketHandlers(state: SimulatedNetworkState): WebSocketHandler<SocketData> {
  return {
    data: {} as SocketData,
    open(ws) {
      ws.data.session = state.openSession({
        push: (frame) => void ws.send(JSON.stringify(frame)),
        close: (code, reason) => ws.close(code, reason.slice(0, closeReasonCharsMax)),
      });
    },
    message(ws, raw) {
      const session = ws.data.session!;
      if (typeof raw !== "string") return ws.close(closeCodes.protocolError, "frames are JSON text");
      try {
        const { frame, type } = clientFrameHeader(raw);
        try {
          state.receive(session, clientFrame(frame, type));
        } catch (error) {
          if (!(error instanceof WireShapeError) || type !== "send" || !Number.isSafeInteger(frame.requestId)) throw error;
          session.push({ type: "sendResult", requestId: requestId(frame), ok: false, transient: false, reason: `malformed send: ${error.message}` });
        }
      } catch (error) {
        if (!(error instanceof WireShapeError)) throw error;
        ws.close(closeCodes.protocolError, `protocol error: ${error.message}`.slice(0, closeReasonCharsMax));
      }
    },
    close(ws) {
      if (ws.data.session !== null) state.sessionClosed(ws.data.session);
    },
  };
}
