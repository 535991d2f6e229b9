// Rate limits of the control plane, as named constants next to the limiters that enforce them.
import { hourMs, minuteMs } from "../clock.ts";
import { SlidingWindowLimiter } from "../http/sliding-window.ts";

/** Spec 1, Limits: per token. */
export const tokenCallsPerMinuteMax = 240;
export const tokenWritesPerMinuteMax = 30;
/** Spec 1, Limits: request body and time-out. */
export const requestBodyBytesMax = 64 * 1024;
export const requestTimeoutMs = 30_000;

/** Failed logins (and failed current-password checks) before 429, per account and per IP. */
export const loginFailuresPerAccountMax = 5;
export const loginFailuresPerIpMax = 20;
export const loginFailureWindowMs = 15 * minuteMs;
/** Mail-sending requests per address/user, and per IP. */
export const mailRequestsPerAddressMax = 5;
export const mailRequestsPerIpMax = 20;
export const mailRequestWindowMs = hourMs;
/** Invalid single-use tokens tried per IP (stops guessing). */
export const tokenRedeemFailuresPerIpMax = 20;
export const tokenRedeemWindowMs = 15 * minuteMs;
/** Sign-ups per IP. */
export const signupsPerIpMax = 20;
export const signupWindowMs = hourMs;
/** OAuth: client registrations and authorization requests (each stores a row before anyone signs in), per IP. */
export const oauthRegistrationsPerIpMax = 30;
export const oauthRegistrationWindowMs = hourMs;
export const oauthAuthorizationsPerIpMax = 60;
export const oauthAuthorizationWindowMs = 10 * minuteMs;
/** OAuth: token and revocation requests together, per IP (each may revoke and push to every region). */
export const oauthTokenRequestsPerIpMax = 120;
export const oauthTokenRequestWindowMs = minuteMs;

export class ControlLimiters {
  readonly loginByAccount = new SlidingWindowLimiter(loginFailuresPerAccountMax, loginFailureWindowMs);
  readonly loginByIp = new SlidingWindowLimiter(loginFailuresPerIpMax, loginFailureWindowMs);
  readonly mailByAddress = new SlidingWindowLimiter(mailRequestsPerAddressMax, mailRequestWindowMs);
  readonly mailByIp = new SlidingWindowLimiter(mailRequestsPerIpMax, mailRequestWindowMs);
  readonly redeemFailuresByIp = new SlidingWindowLimiter(tokenRedeemFailuresPerIpMax, tokenRedeemWindowMs);
  readonly signupsByIp = new SlidingWindowLimiter(signupsPerIpMax, signupWindowMs);
  readonly tokenCalls = new SlidingWindowLimiter(tokenCallsPerMinuteMax, minuteMs);
  readonly tokenWrites = new SlidingWindowLimiter(tokenWritesPerMinuteMax, minuteMs);
  readonly oauthRegistrationsByIp = new SlidingWindowLimiter(oauthRegistrationsPerIpMax, oauthRegistrationWindowMs);
  readonly oauthAuthorizationsByIp = new SlidingWindowLimiter(oauthAuthorizationsPerIpMax, oauthAuthorizationWindowMs);
  readonly oauthTokenRequestsByIp = new SlidingWindowLimiter(oauthTokenRequestsPerIpMax, oauthTokenRequestWindowMs);
}
