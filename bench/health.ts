/** Resolves once `url`/health answers 200; polls every 100 ms and gives up after `seconds`. */
export async function waitForHealth(url: string, seconds: number): Promise<void> {
  for (let i = 0; i < seconds * 10; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not become healthy`);
}
