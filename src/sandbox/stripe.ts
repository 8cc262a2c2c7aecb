import type { EmulatorPlugin } from './types';

// Placeholder until the stripe emulator lands (issue #3).
export const stripeEmulator: EmulatorPlugin = async () => {};
