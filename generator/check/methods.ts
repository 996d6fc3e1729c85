/**
 * The HTTP methods a path item holds operations under, and those of them the client cannot send.
 * A leaf of its own: the operation, path-parameter, extension and request-type checks and the
 * types document all walk path items by these names.
 */
export const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;
/** Methods OpenAPI allows that fetch refuses to send (a TypeError before any request): left out, with SF119. */
export const UNSENDABLE_METHODS = ["trace"] as const;
