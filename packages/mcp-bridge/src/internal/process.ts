/** Whether a process with this id still exists (ESRCH and EPERM both mean ours is gone). */
const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const pause = (millis: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, millis))

/**
 * Waits until the process is gone. The SDK's close sends SIGKILL last without waiting for the
 * exit; a process still there after `graceMillis` is killed again, and waited for as long again.
 */
export const waitForExit = async (pid: number, graceMillis: number): Promise<void> => {
  const killAt = Date.now() + graceMillis
  const giveUpAt = killAt + graceMillis
  let killed = false
  while (isAlive(pid) && Date.now() < giveUpAt) {
    if (!killed && Date.now() >= killAt) {
      killed = true
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        return
      }
    }
    await pause(20)
  }
}

/** Keeps the last characters written to a stream, for error messages. */
export const makeTail = (limit: number) => {
  let kept = ""
  return {
    push: (chunk: string): void => {
      kept = (kept + chunk).slice(-limit)
    },
    text: (): string => kept.trim(),
  }
}
