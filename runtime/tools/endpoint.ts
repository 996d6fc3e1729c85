/**
 * The API Call step's endpoint guard. The model supplies a path; the step may only reach the
 * connection's own base address with it, because the request carries that connection's
 * credentials. Anything that could move the request elsewhere, or that a server might normalise
 * into something else, is refused before a connection is opened:
 *
 * - absolute URLs (`https://…`, `mailto:`), scheme-relative `//host`, a missing leading `/`;
 * - `.` / `..` segments and any `..`, in every percent-encoded form (`%2e%2e`, `%252e`, mixed case)
 *   after decoding repeatedly;
 * - backslashes, control characters, NUL, spaces and other characters outside RFC 3986 `pchar`
 *   (which also keeps out `{…}` templates, quotes and non-ASCII look-alikes), in raw or decoded form
 *   (decoded: non-ASCII characters whose Unicode compatibility form is path syntax, e.g. `%EF%BC%8E`
 *   = full-width '．');
 * - userinfo (`@`), `?` and `#` (query parameters have their own field);
 * - malformed percent escapes and encoded slashes (`%2f`).
 *
 * Finally the URL built from base + path must keep the base's origin and path prefix unchanged.
 */

export interface EndpointRefusal {
  ok: false;
  reason: string;
}

export interface EndpointAccepted {
  ok: true;
  /** The path to send, exactly as given. */
  path: string;
  /** base + path. */
  url: string;
}

const PCHAR_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:%/]*$/;
const MAX_LENGTH = 2048;

function refuse(reason: string): EndpointRefusal {
  return { ok: false, reason };
}

/** Decodes percent escapes once; undefined when an escape is malformed. */
function decodeOnce(text: string): string | undefined {
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) return undefined;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Checks one form (raw or decoded) of the path. */
function problemIn(form: string, raw: boolean): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(form)) return "it contains control characters (NUL, CR, LF, tab, ...)";
  if (form.includes("\\")) return "it contains a backslash";
  if (form.includes("@")) return "it contains '@' (user information in an address is not allowed)";
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(form))
    return "it is an absolute URL; give only the path under the connection's base address";
  if (form.startsWith("//")) return "it starts with '//', which names another host";
  if (form.includes("..")) return "it contains '..' (moving up out of the base address is not allowed)";
  if (form.split("/").some((segment) => segment === ".")) return "it contains a '.' segment";
  if (/\s/.test(form)) return "it contains whitespace";
  if (!raw) {
    // Percent-encoded non-ASCII look-alikes (full-width '．' '／' '％', '‥', ...) that a server
    // normalising Unicode (NFKC) would turn into path syntax.
    for (const ch of form) {
      if (ch.charCodeAt(0) > 0x7f && /[./\\%?#@]/.test(ch.normalize("NFKC")))
        return "it contains a Unicode look-alike of '.', '/', '\\', '%', '?', '#' or '@'";
    }
  }
  if (!raw && form.includes("?")) return "it contains an encoded '?'";
  if (!raw && form.includes("#")) return "it contains an encoded '#'";
  return undefined;
}

/**
 * Accepts `endpoint` only when it is a plain path under `baseUrl`. Pure: no I/O; call it before
 * building any client or request.
 */
export function checkEndpoint(endpoint: unknown, baseUrl: string): EndpointAccepted | EndpointRefusal {
  if (typeof endpoint !== "string") return refuse("the endpoint must be a string path such as /1/cards/{id}");
  if (endpoint.length === 0) return refuse("the endpoint is empty; give a path such as /1/members/me/boards");
  if (endpoint.length > MAX_LENGTH) return refuse(`the endpoint is longer than ${MAX_LENGTH} characters`);
  if (endpoint.includes("?"))
    return refuse("it contains '?'; put query parameters in their own field, not in the endpoint");
  if (endpoint.includes("#")) return refuse("it contains '#' (fragments are not sent)");
  const rawProblem = problemIn(endpoint, true);
  if (rawProblem) return refuse(rawProblem);
  if (!endpoint.startsWith("/"))
    return refuse("the endpoint must start with '/' (a path under the connection's base address)");
  if (!PCHAR_PATH.test(endpoint))
    return refuse(
      "it contains characters that are not allowed in a path (only letters, digits and - . " +
        "_ ~ ! $ & ' ( ) * + , ; = : % /)",
    );
  if (/%2f|%5c/i.test(endpoint)) return refuse("it contains an encoded '/' or '\\'");

  // Decode until stable (double and triple encoding), checking every form.
  let form = endpoint;
  for (let round = 0; round < 5; round++) {
    const decoded = decodeOnce(form);
    if (decoded === undefined) return refuse("it contains a malformed percent escape");
    if (decoded === form) break;
    const problem = problemIn(decoded, false);
    if (problem) return refuse(`${problem} (after percent-decoding)`);
    if (/%2f|%5c/i.test(decoded)) return refuse("it contains an encoded '/' or '\\' (after percent-decoding)");
    form = decoded;
    if (round === 4) return refuse("it is percent-encoded too many times");
  }

  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return refuse("the connection's base address is not a valid URL");
  }
  const basePath = base.pathname.replace(/\/+$/, "");
  const joined = `${base.origin}${basePath}${endpoint}`;
  let built: URL;
  try {
    built = new URL(joined);
  } catch {
    return refuse("the endpoint does not make a valid address");
  }
  if (built.origin !== base.origin) return refuse("the endpoint would leave the connection's host");
  if (built.pathname !== `${basePath}${endpoint}`)
    return refuse("the endpoint is not a normalised path (the address would change it)");
  if (built.username || built.password || built.search || built.hash)
    return refuse("the endpoint adds user information, a query or a fragment");
  return { ok: true, path: endpoint, url: built.toString() };
}
