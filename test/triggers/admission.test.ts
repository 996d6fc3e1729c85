/** Fair shares of a capped resource between remote addresses (runtime/triggers/admission.ts). */
import { describe, expect, it } from "vitest";
import { addressKey, FairShare, type Holder } from "../../runtime/triggers/admission.js";

/** A holder that records its eviction; `busy` ranks it after idle ones. */
function holder(address: string, evicted: string[], name = address, busy = false): Holder {
  return { address, rank: () => (busy ? 1 : 0), evict: () => void evicted.push(name) };
}

describe("FairShare", () => {
  it("refuses past an address's own cap, whatever the total", () => {
    const share = new FairShare(100, 10);
    const a = holder("a", []);
    expect(share.take(a, 10)).toBeUndefined();
    expect(share.take(a, 1)).toBe("address");
    expect(share.take(holder("a", []), 1)).toBe("address"); // another holder of the same address
    expect(share.amountOf("a")).toBe(10);
  });

  it("at the total, the address holding the most gives way to one holding less: its largest holder first", () => {
    const evicted: string[] = [];
    const share = new FairShare(10, 10);
    share.take(holder("a", evicted, "a-small"), 3);
    share.take(holder("a", evicted, "a-large"), 5);
    share.take(holder("b", evicted, "b"), 2);
    expect(share.take(holder("c", evicted, "c"), 4)).toBeUndefined();
    expect(evicted).toEqual(["a-large"]);
    expect([share.amount, share.amountOf("a"), share.amountOf("c")]).toEqual([9, 3, 4]);
    expect(share.evictions).toBe(1);
  });

  it("nobody gives way to an address that would then hold as much or more: the newcomer is refused", () => {
    const evicted: string[] = [];
    const share = new FairShare(4, 4);
    share.take(holder("a", evicted), 2);
    share.take(holder("b", evicted), 2);
    expect(share.take(holder("c", evicted), 2)).toBe("total");
    // And an address never evicts its own holders.
    expect(share.take(holder("a", evicted), 1)).toBe("total");
    expect(evicted).toEqual([]);
  });

  it("evicts idle holders before busy ones, the oldest first", () => {
    const evicted: string[] = [];
    const share = new FairShare(3, 3);
    share.take(holder("a", evicted, "busy", true), 1);
    share.take(holder("a", evicted, "idle-old"), 1);
    share.take(holder("a", evicted, "idle-new"), 1);
    share.take(holder("b", evicted, "b1"), 1);
    expect(evicted).toEqual(["idle-old"]);
  });

  it("gives back what a holder held, once, and remembers the peaks", () => {
    const share = new FairShare(10, 10);
    const a = holder("a", []);
    share.take(a, 4);
    share.take(a, 3);
    share.release(a);
    share.release(a);
    expect([share.amount, share.amountOf("a"), share.peak, share.peakPerAddress]).toEqual([0, 0, 7, 7]);
  });
});

describe("addressKey", () => {
  it("counts IPv4 as it is, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64", () => {
    expect(addressKey("127.0.0.2")).toBe("127.0.0.2");
    expect(addressKey("::ffff:127.0.0.2")).toBe("127.0.0.2");
    expect(addressKey("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002::9")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressKey(undefined)).toBe("unknown");
  });
});
