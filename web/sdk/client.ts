// The SDK's core: identity, super properties, consent, sessions, automatic pageviews, the
// event queue, feature flags, and the switch that loads the recording module when recording
// is on. Events are written in the native ingest format (docs/sdk.md, "Wire format").
import { startClickAutocapture } from "./autocapture.ts";
import { browserProperties } from "./browser-properties.ts";
import { Delivery } from "./delivery.ts";
import { FeatureFlags, type FlagsCallback, type FlagValue } from "./flags.ts";
import {
  batchEventsMax, defaultBatchSize, defaultFlushIntervalMs, recordingOptions, requestCharactersMax,
  type Consent, type InitOptions, type Recorder, type RecorderHost, type StartRecorder,
} from "./options.ts";
import { Sessions } from "./sessions.ts";
import { browserStorage, SwitchableStore } from "./storage.ts";
import { uuidv7 } from "./uuid.ts";
import { libName, libVersion } from "./version.ts";

/** Sampled-out sessions remembered (a session is sampled out once and stays so). */
const sampledOutRemembered = 20;

interface State {
  distinct_id: string;
  /** Whether identify() named the person (then a later identify() links no anonymous id). */
  identified: boolean;
  props: Record<string, unknown>;
  groups: Record<string, string>;
  sampled_out: string[];
}

const freshState = (distinctId = uuidv7()): State => ({ distinct_id: distinctId, identified: false, props: {}, groups: {}, sampled_out: [] });
const consents: readonly Consent[] = ["granted", "pending", "cookieless"];
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

export class Client {
  private readonly stateKey: string;
  private readonly sessionKey: string;
  private readonly store: SwitchableStore;
  private readonly tabStore: SwitchableStore;
  private readonly sessions: Sessions;
  private readonly events: Delivery;
  private readonly flags: FeatureFlags;
  private readonly apiHost: string;
  private readonly batchSize: number;
  private consent: Consent;
  private recordingWanted: boolean;
  private recorder: Recorder | null = null;
  private recorderLoading = false;
  private lastPageUrl: string;
  /** What identify() set on the person in this page: sent with flag requests, so rules on them hold before ingest has stored them. */
  private personPropertiesForFlags: Record<string, unknown> = {};

  constructor(
    private readonly apiKey: string,
    private readonly options: InitOptions,
    private readonly recorderUrl: string,
  ) {
    this.apiHost = options.api_host.replace(/\/+$/, "");
    this.stateKey = `svca_${apiKey}`;
    this.sessionKey = `${this.stateKey}_session`;
    const windowKey = `${this.stateKey}_window`;
    this.store = new SwitchableStore([this.stateKey, this.sessionKey]);
    this.tabStore = new SwitchableStore([windowKey]);
    this.consent = consents.includes(options.consent!) ? options.consent! : "granted";
    this.useStorage();
    this.sessions = new Sessions(this.store, this.sessionKey, this.tabStore, windowKey);
    if (!this.store.readJson<State>(this.stateKey)?.distinct_id) this.save(freshState(options.bootstrap?.distinct_id || undefined));

    this.batchSize = Math.min(Math.max(1, options.batch_size ?? defaultBatchSize), batchEventsMax);
    this.events = new Delivery({
      url: `${this.apiHost}/e`,
      envelope: (items) => `{"api_key":${JSON.stringify(apiKey)},"sent_at":"${new Date().toISOString()}","batch":[${items}]}`,
      itemsMax: this.batchSize,
      bytesMax: requestCharactersMax,
    });
    this.flags = new FeatureFlags(`${this.apiHost}/flags`, apiKey, options.bootstrap?.feature_flags);
    this.recordingWanted = options.session_recording?.enabled === true;
    this.lastPageUrl = location.href;

    setInterval(() => void this.flush(), options.flush_interval_ms ?? defaultFlushIntervalMs);
    const onHide = () => this.events.sendAllOnHide();
    addEventListener("pagehide", onHide);
    document.addEventListener("visibilitychange", () => document.visibilityState === "hidden" && onHide());
    if (options.capture_pageview !== false) {
      this.capture("$pageview", { ...(document.referrer ? { $referrer: document.referrer } : {}), $title: document.title });
      this.watchNavigation();
    }
    if (options.autocapture === true) {
      startClickAutocapture((properties) => this.capture("$autocapture", properties), options.session_recording?.mask_text_selector);
    }
    void this.reloadFeatureFlags();
    this.syncRecording();
  }

  /** granted: the `persistence` option's Storage; pending and cookieless: memory only. */
  private useStorage(): void {
    const persist = this.consent === "granted" && this.options.persistence !== "memory";
    this.store.use(persist ? browserStorage("localStorage") : null);
    this.tabStore.use(persist ? browserStorage("sessionStorage") : null);
  }

  private state(): State {
    const state = this.store.readJson<State>(this.stateKey);
    return isObject(state) && typeof state.distinct_id === "string" ? { ...freshState(state.distinct_id), ...state } : freshState();
  }

  private save(state: State): void {
    this.store.writeJson(this.stateKey, state);
  }

  /** $pageview on every history navigation to another URL (single-page apps). */
  private watchNavigation(): void {
    const navigated = () => {
      if (location.href === this.lastPageUrl) return;
      const referrer = this.lastPageUrl;
      this.capture("$pageview", { $referrer: referrer, $title: document.title });
    };
    const pushState = history.pushState;
    history.pushState = function (this: History, ...args: Parameters<History["pushState"]>) {
      pushState.apply(this, args);
      navigated();
    };
    addEventListener("popstate", navigated);
  }

  private enqueue(event: string, properties: Record<string, unknown>, fields: Record<string, unknown> = {}): void {
    const now = Date.now();
    const state = this.state();
    const wire: Record<string, unknown> = {
      uuid: uuidv7(now),
      event,
      timestamp: new Date(now).toISOString(),
      distinct_id: state.distinct_id,
      properties: { ...browserProperties(), ...state.props, ...properties },
      lib: { name: libName, version: libVersion },
      session_id: this.sessions.current(true, now),
      window_id: this.sessions.windowId(),
      consent: this.consent,
      ...fields,
    };
    if (Object.keys(state.groups).length > 0) wire.groups = state.groups;
    if (event === "$pageview") this.lastPageUrl = location.href;
    this.events.push(JSON.stringify(wire));
    if (this.events.size >= this.batchSize) void this.flush();
  }

  capture(event: string, properties?: Record<string, unknown>): void {
    if (typeof event !== "string" || event === "") return;
    this.enqueue(event, isObject(properties) ? properties : {});
  }

  identify(distinctId: string, set?: Record<string, unknown>, setOnce?: Record<string, unknown>): void {
    if (typeof distinctId !== "string" || distinctId.trim() === "") return;
    const state = this.state();
    const personFields = { ...(isObject(set) ? { $set: set } : {}), ...(isObject(setOnce) ? { $set_once: setOnce } : {}) };
    if (distinctId === state.distinct_id) {
      if (Object.keys(personFields).length > 0) this.enqueue("$set", {}, personFields);
      return;
    }
    const anonymous = state.identified ? null : state.distinct_id;
    this.save({ ...state, distinct_id: distinctId, identified: true });
    this.personPropertiesForFlags = { ...(isObject(setOnce) ? setOnce : {}), ...(isObject(set) ? set : {}) };
    this.enqueue("$identify", anonymous ? { $anon_distinct_id: anonymous } : {}, { ...(anonymous ? { anon_id: anonymous } : {}), ...personFields });
    void this.reloadFeatureFlags();
  }

  alias(alias: string): void {
    if (typeof alias === "string" && alias.trim() !== "") this.enqueue("$create_alias", { alias });
  }

  group(type: string, key: string, properties?: Record<string, unknown>): void {
    if (typeof type !== "string" || type === "" || typeof key !== "string" || key === "") return;
    const state = this.state();
    this.save({ ...state, groups: { ...state.groups, [type]: key } });
    this.enqueue("$groupidentify", { $group_type: type, $group_key: key, $group_set: isObject(properties) ? properties : {} });
    void this.reloadFeatureFlags();
  }

  /** A new anonymous person on this device: new distinct id, no super properties or groups, a new session. */
  reset(): void {
    this.save({ ...freshState(), sampled_out: this.state().sampled_out });
    this.personPropertiesForFlags = {};
    this.sessions.end();
    void this.reloadFeatureFlags();
  }

  register(properties: Record<string, unknown>): void {
    if (!isObject(properties)) return;
    const state = this.state();
    this.save({ ...state, props: { ...state.props, ...properties } });
  }

  unregister(key: string): void {
    const state = this.state();
    const { [key]: _removed, ...props } = state.props;
    this.save({ ...state, props });
  }

  setConsent(mode: Consent): void {
    if (!consents.includes(mode)) return;
    this.consent = mode;
    this.useStorage();
    this.syncRecording();
  }

  isFeatureEnabled(key: string): boolean | undefined {
    return this.flags.enabled(key);
  }

  getFeatureFlag(key: string): FlagValue | undefined {
    return this.flags.value(key);
  }

  getFeatureFlagPayload(key: string): unknown {
    return this.flags.payload(key);
  }

  onFeatureFlags(callback: FlagsCallback): () => void {
    return this.flags.subscribe(callback);
  }

  reloadFeatureFlags(): Promise<void> {
    const state = this.state();
    return this.flags.reload({ distinct_id: state.distinct_id, groups: state.groups, person_properties: this.personPropertiesForFlags });
  }

  getDistinctId(): string {
    return this.state().distinct_id;
  }

  getSessionId(): string {
    return this.sessions.current(false);
  }

  flush(): Promise<void> {
    return this.events.flush();
  }

  startSessionRecording(): void {
    this.recordingWanted = true;
    this.syncRecording();
  }

  stopSessionRecording(): void {
    this.recordingWanted = false;
    this.syncRecording();
  }

  /** Records while recording is wanted and consent is granted (pending and cookieless never record). */
  private syncRecording(): void {
    const record = this.recordingWanted && this.consent === "granted";
    if (!record) {
      this.recorder?.stop();
      this.recorder = null;
      return;
    }
    if (this.recorder || this.recorderLoading) return;
    this.recorderLoading = true;
    loadRecorder(this.recorderUrl)
      .then((start) => {
        this.recorderLoading = false;
        if (!this.recorder && this.recordingWanted && this.consent === "granted") this.recorder = start(this.recorderHost());
      })
      .catch((error: unknown) => {
        this.recorderLoading = false;
        console.warn("svcAnalytics: session recording could not start:", error);
      });
  }

  private recorderHost(): RecorderHost {
    return {
      apiHost: this.apiHost,
      apiKey: this.apiKey,
      options: recordingOptions(this.options.session_recording),
      sessionId: (activity) => this.sessions.current(activity),
      windowId: () => this.sessions.windowId(),
      distinctId: () => this.state().distinct_id,
      nextSeq: (sessionId) => this.sessions.nextSeq(sessionId),
      isSampledOut: (sessionId) => this.state().sampled_out.includes(sessionId),
      markSampledOut: (sessionId) => {
        const state = this.state();
        if (!state.sampled_out.includes(sessionId)) this.save({ ...state, sampled_out: [...state.sampled_out, sessionId].slice(-sampledOutRemembered) });
      },
    };
  }
}

let recorderScript: Promise<StartRecorder> | null = null;

/** recorder.js, loaded once per page by a script element; it sets window.svcAnalyticsRecorder. */
function loadRecorder(url: string): Promise<StartRecorder> {
  if (window.svcAnalyticsRecorder) return Promise.resolve(window.svcAnalyticsRecorder);
  recorderScript ??= new Promise<StartRecorder>((resolve, reject) => {
    const script = document.createElement("script");
    script.src = url;
    script.async = true;
    script.onload = () => (window.svcAnalyticsRecorder ? resolve(window.svcAnalyticsRecorder) : reject(new Error(`${url} did not define the recorder`)));
    script.onerror = () => reject(new Error(`${url} could not be loaded`));
    document.head.appendChild(script);
  });
  recorderScript.catch(() => (recorderScript = null));
  return recorderScript;
}
