// Suppression is by address without regard to case: local parts are case-sensitive in theory,
// but no mail system in use treats them so, and a bounce report often changes the case.
export const suppressionKey = (address: string) => address.toLowerCase();
