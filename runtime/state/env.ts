/** The environment variables that choose the state store (config.ts reads them; the client core names them). */
export const REDIS_URL_ENV = "STEPFORGE_REDIS_URL";
export const STATE_DIR_ENV = "STEPFORGE_STATE_DIR";
export const STATE_FALLBACK_ENV = "STEPFORGE_STATE_FALLBACK";
export const STATE_WAIT_ENV = "STEPFORGE_STATE_WAIT_MS";
