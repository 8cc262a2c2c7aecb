import type { EmulatorPlugin } from './types';

// Placeholder until the pagarme emulator lands (issue #3).
export const pagarmeEmulator: EmulatorPlugin = async () => {};
