/**
 * The JavaScript QuickJS runs before the agent's code: it builds `services` and `console` from two
 * host functions and wraps the agent's function so that its outcome reaches the host as one
 * string. It is source text because it runs inside the sandbox, not in Node.
 *
 * Only strings cross: a call's argument is `JSON.stringify`-ed here, inside QuickJS, and the
 * host's reply is a JSON string parsed here. The host functions stay in this closure (the agent's
 * code cannot reach them), the intrinsics it uses are captured before the agent's code runs (so
 * replacing `JSON.stringify` later changes nothing here), and every object it hands out is frozen.
 *
 * `run(main)` resolves to one string: `v<json>` (the returned value), `u` (undefined) or
 * `e<json>` (what was thrown: name, message, the first lines of its stack, and a service error's
 * fields). Only uncatchable interrupts (a budget) and running out of memory bypass it.
 */
export const PRELUDE = String.raw`(function (host, log, shapeText) {
  "use strict";
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const freeze = Object.freeze;
  const keys = Object.keys;
  const StringOf = String;
  const ErrorBase = Error;

  class ServiceError extends ErrorBase {
    constructor(detail) {
      super(StringOf(detail.message));
      this.name = "ServiceError";
      for (const key of keys(detail)) if (key !== "message") this[key] = detail[key];
    }
  }

  function method(service, account, name) {
    const label = "services." + service + (account === "" ? "" : "." + account) + "." + name;
    return async function (init) {
      let text = "";
      if (init !== undefined) {
        try {
          text = stringify(init);
        } catch (error) {
          throw new TypeError(label + ": its argument must be JSON data (" + (error && error.message) + ")");
        }
        if (text === undefined) {
          throw new TypeError(label + ": its argument must be an object such as { params: { path: { id } } }");
        }
      }
      const reply = parse(await host(service, account, name, text));
      if (reply.ok) return reply.data;
      throw new ServiceError(reply.error);
    };
  }

  function api(service, account, methods) {
    const out = {};
    for (const name of methods) out[name] = method(service, account, name);
    return freeze(out);
  }

  const services = {};
  for (const entry of parse(shapeText)) {
    if (entry.accounts) {
      const byAccount = {};
      for (const account of entry.accounts) byAccount[account] = api(entry.id, account, entry.methods);
      services[entry.id] = freeze(byAccount);
    } else {
      services[entry.id] = api(entry.id, "", entry.methods);
    }
  }
  freeze(services);

  function format(value) {
    if (typeof value === "string") return value;
    try {
      const text = stringify(value);
      return text === undefined ? StringOf(value) : text;
    } catch (error) {
      return StringOf(value);
    }
  }
  function writer(level) {
    return function (first) {
      // One string (the common case) goes as it is: no copy inside the sandbox.
      if (arguments.length === 1 && typeof first === "string") return void log(level, first);
      const parts = [];
      for (let i = 0; i < arguments.length; i++) parts.push(format(arguments[i]));
      log(level, parts.join(" "));
    };
  }
  const consoleObject = freeze({
    log: writer("log"), info: writer("info"), warn: writer("warn"), error: writer("error"), debug: writer("debug"),
  });
  Object.defineProperty(globalThis, "console", {
    value: consoleObject, writable: false, configurable: false, enumerable: false,
  });

  function field(error, key) {
    try {
      const value = error[key];
      return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : undefined;
    } catch (e) {
      return undefined;
    }
  }
  function describe(error) {
    const out = {};
    if (error !== null && (typeof error === "object" || typeof error === "function")) {
      out.name = field(error, "name");
      out.message = field(error, "message");
      const stack = field(error, "stack");
      if (typeof stack === "string") out.stack = stack.split("\n").slice(0, 6).join("\n");
      if (error instanceof ServiceError) {
        for (const key of keys(error)) {
          if (key === "stack" || key === "name" || key === "message") continue;
          try {
            const text = stringify(error[key]);
            if (text !== undefined) out[key] = parse(text);
          } catch (e) {}
        }
      }
    } else {
      out.name = "thrown value";
      try {
        out.message = StringOf(error);
      } catch (e) {
        out.message = "(a value that cannot be shown)";
      }
    }
    try {
      return "e" + stringify(out);
    } catch (e) {
      return "e" + stringify({ name: "thrown value", message: "(an error that cannot be shown)" });
    }
  }

  return async function run(main) {
    let value;
    try {
      value = await main(services);
    } catch (error) {
      return describe(error);
    }
    if (value === undefined) return "u";
    let text;
    try {
      text = stringify(value);
    } catch (error) {
      const message = "the returned value is not JSON data: " + (error && error.message);
      return "e" + stringify({ name: "ResultError", message });
    }
    return text === undefined ? "u" : "v" + text;
  };
})`;
