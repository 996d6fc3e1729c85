/**
 * Fair shares of a capped resource (open connections, request body bytes held in memory) between
 * the remote addresses that use it, so that senders who are not the service cannot starve the one
 * that is.
 *
 * Each address may hold at most `perAddress`; all together at most `total`. When the total is
 * reached, a newcomer is not simply refused (then whoever filled the cap first keeps everyone
 * else out for as long as it likes): the address holding the most gives way — its holders are
 * evicted, the one holding the most first — as long as it holds more than the newcomer's address
 * would after the grant. A flood from a few addresses therefore cannot lock out a sender from
 * another one; only a flood spread evenly over more addresses than `total / perAddress` can slow
 * it down, and then each address still gets its share.
 *
 * IPv6 senders are counted per /64 network (one host usually has a whole /64 to pick from).
 */
import { isIPv6 } from "node:net";

/** One party holding part of the resource: a connection, or one request's body. */
export interface Holder {
  /** The remote address, as {@link addressKey} gives it. */
  readonly address: string;
  /** Evicted holders are preferred in this order (lower first), then the larger amount. */
  readonly rank?: () => number;
  /** Gives the share up at once (answers and closes); called at most once. */
  readonly evict: () => void;
}

/** Why a grant was refused: the address's own cap, or the total with nobody to give way. */
export type Refusal = "address" | "total";

interface AddressUse {
  amount: number;
  holders: Map<Holder, number>;
}

export class FairShare {
  private readonly addresses = new Map<string, AddressUse>();
  private used = 0;
  /** The highest total and the highest single address's amount ever held (for tests and metrics). */
  peak = 0;
  peakPerAddress = 0;
  evictions = 0;

  constructor(
    readonly total: number,
    readonly perAddress: number,
  ) {}

  get amount(): number {
    return this.used;
  }

  amountOf(address: string): number {
    return this.addresses.get(address)?.amount ?? 0;
  }

  /** Adds `amount` to what `holder` holds, evicting others when that is fair; the refusal otherwise. */
  take(holder: Holder, amount: number): Refusal | undefined {
    const mine = this.amountOf(holder.address);
    if (mine + amount > this.perAddress) return "address";
    while (this.used + amount > this.total) {
      const victim = this.largestOtherThan(holder.address, mine + amount);
      if (!victim) return "total";
      this.evict(victim);
    }
    let use = this.addresses.get(holder.address);
    if (!use) this.addresses.set(holder.address, (use = { amount: 0, holders: new Map() }));
    use.amount += amount;
    use.holders.set(holder, (use.holders.get(holder) ?? 0) + amount);
    this.used += amount;
    this.peak = Math.max(this.peak, this.used);
    this.peakPerAddress = Math.max(this.peakPerAddress, use.amount);
    return undefined;
  }

  /** Gives back everything `holder` holds (safe to call twice). */
  release(holder: Holder): void {
    const use = this.addresses.get(holder.address);
    const held = use?.holders.get(holder);
    if (!use || held === undefined) return;
    use.holders.delete(holder);
    use.amount -= held;
    this.used -= held;
    if (use.holders.size === 0) this.addresses.delete(holder.address);
  }

  /** The holder to evict: from the address holding the most, if that is more than `than`. */
  private largestOtherThan(address: string, than: number): Holder | undefined {
    let largest: AddressUse | undefined;
    for (const [key, use] of this.addresses) {
      if (key !== address && use.amount > than && (!largest || use.amount > largest.amount)) largest = use;
    }
    if (!largest) return undefined;
    let pick: Holder | undefined;
    let pickRank = 0;
    for (const [holder, amount] of largest.holders) {
      const rank = holder.rank?.() ?? 0;
      if (!pick || rank < pickRank || (rank === pickRank && amount > largest.holders.get(pick)!)) {
        pick = holder;
        pickRank = rank;
      }
    }
    return pick;
  }

  private evict(holder: Holder): void {
    this.release(holder);
    this.evictions++;
    holder.evict();
  }
}

/** The key a remote address is counted under: IPv4 as it is, IPv6 by its /64 network. */
export function addressKey(remote: string | undefined): string {
  if (!remote) return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remote);
  if (mapped) return mapped[1]!;
  if (!isIPv6(remote)) return remote;
  const [head = "", tail = ""] = remote.split("%")[0]!.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = remote.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}
