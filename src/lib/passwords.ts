/** passwords: the one rule every password meets — console change, operator reset, user creation, first start. */

const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

/** PASSWORD_RULE says the rule in words, for error messages, help texts and the schema description. */
export const PASSWORD_RULE = `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`;

/**
 * passwordProblem answers what is wrong with a new password, or null when it is acceptable. Length is the rule (NIST SP
 * 800-63B: length over composition); `current`, when known, must not be reused as the new one.
 */
export function passwordProblem(password: string, current?: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) return `must be ${PASSWORD_RULE} (got ${password.length})`;
  if (current !== undefined && password === current) return "must differ from the current password";
  return null;
}
