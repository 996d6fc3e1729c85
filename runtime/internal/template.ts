/**
 * `{name}` placeholders in descriptor strings (base URLs, credential placements, token URLs).
 * A missing value is an error naming the placeholder, never an empty string sent on the wire.
 */
export function fillTemplate(
  template: string,
  values: Readonly<Record<string, string | undefined>>,
  what: string,
): string {
  return template.replace(/\{([a-zA-Z][a-zA-Z0-9_]*)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined || value === "") {
      throw new Error(`${what}: the connection has no value for "${name}"; add the field "${name}" to the connection`);
    }
    return value;
  });
}

/** The placeholder names a template uses, in order of first appearance. */
export function templateFields(template: string): string[] {
  return [...new Set([...template.matchAll(/\{([a-zA-Z][a-zA-Z0-9_]*)\}/g)].map((m) => m[1]!))];
}
