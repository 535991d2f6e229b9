// The account rules as the console states them; the control plane enforces them (names of
// 1-200 characters; passwords of 10-256 characters, not in the list of common breached ones).
export const nameLengthMax = 200;
export const passwordLengthMin = 10;
export const passwordLengthMax = 256;
export const passwordHint = `At least ${passwordLengthMin} characters. Common and breached passwords are refused.`;
