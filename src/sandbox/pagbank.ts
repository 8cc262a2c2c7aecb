import type { EmulatorPlugin } from './types';

// Placeholder until the pagbank emulator lands (issue #3).
export const pagbankEmulator: EmulatorPlugin = async () => {};
