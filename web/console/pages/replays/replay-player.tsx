// The player: rrweb's Replayer rebuilds the recorded page in a sandboxed iframe (its defaults:
// `allow-same-origin` only, so nothing recorded can run), and our controls drive it: play and
// pause, a seek bar with the session's analytics events placed along it, elapsed and total
// time, speed, and skipping inactivity. Only this page's chunk loads rrweb.
import { Replayer } from "@rrweb/replay";
import type { eventWithTime } from "@rrweb/types";
import { useEffect, useRef, useState } from "preact/hooks";
import type { RecordedEvent, ReplaySessionEvent } from "../../api/replays-api.ts";
import { Button } from "../../ui/button.tsx";
import { PauseIcon, PlayIcon } from "../../ui/icons.tsx";
import { formatPlayerTime } from "./replay-format.ts";
import { recordedStyles } from "./replay-styles.ts";
import { ReplayEventList, ReplayEventMarkers, type TimelineEvent } from "./replay-timeline.tsx";

export const playbackSpeeds = [1, 2, 4, 8] as const;
/** The seek bar's step: a tenth of a second is finer than anyone drags. */
const seekStepMs = 100;

interface Viewport {
  width: number;
  height: number;
}

/** Where each analytics event falls in the recording, in ms from its first event (within the recording). */
const timelineOf = (events: ReplaySessionEvent[], startMs: number, totalMs: number): TimelineEvent[] =>
  events.map((event) => ({ ...event, offsetMs: Math.min(totalMs, Math.max(0, Date.parse(event.timestamp) - startMs)) }));

export function ReplayPlayer({ events, sessionEvents, startAtMs }: { events: RecordedEvent[]; sessionEvents: ReplaySessionEvent[]; startAtMs: number | null }) {
  const stage = useRef<HTMLDivElement>(null);
  const replayer = useRef<Replayer | null>(null);
  const [playing, setPlaying] = useState(false);
  const [currentMs, setCurrentMs] = useState(0);
  const [meta, setMeta] = useState({ startTime: 0, totalTime: 0 });
  const [speed, setSpeed] = useState<number>(1);
  const [skipInactive, setSkipInactive] = useState(true);
  const [viewport, setViewport] = useState<Viewport | null>(null);
  const [stageWidth, setStageWidth] = useState(0);

  // One Replayer per recording: speed, skipping and the opening place are its first settings;
  // later changes go through setConfig and seeking. No mouse tail: the pointer alone is enough.
  useEffect(() => {
    const root = stage.current!;
    const styles = recordedStyles();
    const player = new Replayer(events as unknown as eventWithTime[], { root, skipInactive, speed, mouseTail: false, showWarning: false, plugins: [styles.plugin] });
    styles.adopt(player);
    replayer.current = player;
    const metaData = player.getMetaData();
    setMeta({ startTime: metaData.startTime, totalTime: metaData.totalTime });
    player.on("resize", (size) => setViewport(size as Viewport));
    player.on("finish", () => {
      setPlaying(false);
      setCurrentMs(player.getMetaData().totalTime);
    });
    const opening = startAtMs === null ? 0 : Math.min(metaData.totalTime, Math.max(0, startAtMs - metaData.startTime));
    player.play(opening);
    setCurrentMs(opening);
    setPlaying(true);
    const resized = new ResizeObserver(([entry]) => setStageWidth(entry!.contentRect.width));
    resized.observe(root);
    return () => {
      resized.disconnect();
      player.destroy();
      replayer.current = null;
    };
  }, [events]);

  // While playing, the time display follows the player once a frame.
  useEffect(() => {
    if (!playing) return;
    let frame = requestAnimationFrame(function tick() {
      const player = replayer.current;
      if (player) setCurrentMs(Math.min(player.getCurrentTime(), player.getMetaData().totalTime));
      frame = requestAnimationFrame(tick);
    });
    return () => cancelAnimationFrame(frame);
  }, [playing]);

  // The recorded page keeps its own size; it is scaled to the stage's width (a CSSOM style, which the CSP allows).
  const scale = viewport && stageWidth > 0 ? Math.min(1, stageWidth / viewport.width) : 1;
  useEffect(() => {
    const wrapper = replayer.current?.wrapper;
    if (wrapper) wrapper.style.transform = `scale(${scale})`;
  }, [scale, viewport]);

  const seek = (offsetMs: number) => {
    const player = replayer.current;
    if (!player) return;
    const clamped = Math.min(meta.totalTime, Math.max(0, offsetMs));
    if (playing) player.play(clamped);
    else player.pause(clamped);
    setCurrentMs(clamped);
  };
  const togglePlay = () => {
    const player = replayer.current;
    if (!player) return;
    if (playing) {
      player.pause();
      setCurrentMs(player.getCurrentTime());
      setPlaying(false);
    } else {
      // From the start again once the end was reached.
      player.play(currentMs >= meta.totalTime ? 0 : currentMs);
      setPlaying(true);
    }
  };
  const chooseSpeed = (chosen: number) => {
    setSpeed(chosen);
    replayer.current?.setConfig({ speed: chosen });
  };
  const toggleSkip = (checked: boolean) => {
    setSkipInactive(checked);
    replayer.current?.setConfig({ skipInactive: checked });
  };

  const timeline = timelineOf(sessionEvents, meta.startTime, meta.totalTime);
  return (
    <div class="replay-player">
      <div class="replay-main">
        <div class="replay-stage-frame">
          <div ref={stage} class="replay-stage" style={viewport ? { height: `${Math.round(viewport.height * scale)}px` } : undefined} aria-label="The recorded page" role="region" />
        </div>
        <div class="replay-controls" role="group" aria-label="Player controls">
          <Button small variant="primary" onClick={togglePlay} aria-label={playing ? "Pause" : "Play"}>
            {playing ? <PauseIcon /> : <PlayIcon />}
          </Button>
          <div class="replay-seek">
            <ReplayEventMarkers events={timeline} totalMs={meta.totalTime} onSeek={seek} />
            <input
              type="range"
              class="replay-seek-bar"
              aria-label="Seek"
              min={0}
              max={meta.totalTime}
              step={seekStepMs}
              value={currentMs}
              aria-valuetext={formatPlayerTime(currentMs)}
              onInput={(event) => seek(Number((event.currentTarget as HTMLInputElement).value))}
            />
          </div>
          <span class="replay-time mono" aria-label="Elapsed and total time">{formatPlayerTime(currentMs)} / {formatPlayerTime(meta.totalTime)}</span>
        </div>
        <div class="replay-options">
          <div class="segmented" role="group" aria-label="Speed">
            {playbackSpeeds.map((option) => (
              <button key={option} type="button" class="segmented-item" aria-pressed={speed === option} onClick={() => chooseSpeed(option)}>{option}x</button>
            ))}
          </div>
          <label class="check">
            <input type="checkbox" checked={skipInactive} onChange={(event) => toggleSkip((event.currentTarget as HTMLInputElement).checked)} />
            Skip inactivity
          </label>
        </div>
      </div>
      <ReplayEventList events={timeline} currentMs={currentMs} onSeek={seek} />
    </div>
  );
}
