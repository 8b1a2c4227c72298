import type { Component } from '@custos/contracts';

/** Where a PIP method or PXP action is answered: the first http(s) URL of the component, and which component. */
export interface Endpoint {
  readonly componentId: string;
  readonly url: string;
}

/**
 * The PIP and PXP components the pdp may call (they reach it with the deployed set, contracts/nats.ts), indexed
 * for api.md §6: a component of the same solution whose interface `methodName` equals the URN or its last segment.
 * An exact URN match wins over a bare name; among equals the component id that sorts first. Components without an
 * http(s) URL answer nothing (`rmi` URLs are never called).
 */
export class ComponentRegistry {
  static readonly EMPTY = new ComponentRegistry(new Map());

  private readonly pips = new Map<string, Endpoint>();
  private readonly pxps = new Map<string, Endpoint>();

  constructor(readonly components: ReadonlyMap<string, Component>) {
    const sorted = [...components.values()].sort((a, b) => compare(a.id.identifier, b.id.identifier));
    for (const exact of [true, false]) {
      for (const component of sorted) {
        const type = component.id.componentType;
        if (type !== 'PIP' && type !== 'PXP') continue;
        const url = component.urls.find((candidate) => /^https?:\/\//i.test(candidate));
        if (url === undefined) continue;
        const solution = component.id.identifier.split(':')[2] ?? '';
        const index = type === 'PIP' ? this.pips : this.pxps;
        for (const described of component.componentInterfaces) {
          const method = described.methodName;
          const isUrn = method.startsWith('urn:');
          if (isUrn !== exact) continue;
          // Keyed by solution and the method's last segment: that is how a URN from a policy is looked up.
          const key = isUrn ? `${solution}\u0000urn\u0000${method}` : `${solution}\u0000name\u0000${method}`;
          if (!index.has(key)) index.set(key, { componentId: component.id.identifier, url });
        }
      }
    }
  }

  get size(): number {
    return this.components.size;
  }

  /** The PIP answering `urn:info:<solution>:<m>` for that solution. */
  pip(solution: string, method: string): Endpoint | undefined {
    return this.lookup(this.pips, solution, method);
  }

  /** The PXP executing `urn:action:<solution>:<a>` for that solution. */
  pxp(solution: string, action: string): Endpoint | undefined {
    return this.lookup(this.pxps, solution, action);
  }

  /** A registry with this component added or replaced (by id). */
  with(component: Component): ComponentRegistry {
    const next = new Map(this.components);
    next.set(component.id.identifier, component);
    return new ComponentRegistry(next);
  }

  without(componentId: string): ComponentRegistry {
    if (!this.components.has(componentId)) return this;
    const next = new Map(this.components);
    next.delete(componentId);
    return new ComponentRegistry(next);
  }

  private lookup(index: ReadonlyMap<string, Endpoint>, solution: string, urn: string): Endpoint | undefined {
    const exact = index.get(`${solution}\u0000urn\u0000${urn}`);
    if (exact !== undefined) return exact;
    const last = urn.slice(urn.lastIndexOf(':') + 1);
    return index.get(`${solution}\u0000name\u0000${last}`);
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
