import type { EmulatorControl } from '../control';

/** Anything the control's reset can empty: Maps and Sets. */
export interface Clearable {
  clear(): void;
}

/**
 * An emulator's in-memory state as named collections (`{ orders: new Map(), ... }`), each emptied by
 * `POST /__control/reset`. State belongs to one emulator server: two servers in one process never share it.
 */
export function wireState<T extends Readonly<Record<string, Clearable>>>(control: EmulatorControl, collections: T): T {
  control.onReset(() => {
    for (const collection of Object.values(collections)) collection.clear();
  });
  return collections;
}
