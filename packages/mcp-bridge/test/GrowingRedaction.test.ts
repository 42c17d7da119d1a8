import { describe, expect, it } from "vitest"
import { makeGrowingRedaction, recentKept } from "../src/internal/remoteSecrets.js"

// A DPoP proof is made anew for every request (D52): the redaction keeps the latest ones, a
// bounded number, so a long-lived connection neither grows nor slows with each request.
const proof = (n: number) =>
  `eyJhbGciOiJFUzI1NiJ9.eyJqdGkiOiJwcm9vZi0ke${n}}.c2lnbmF0dXJlLW9mLXByb29m${n}`

describe("the redaction of a remote connection", () => {
  it("redacts the configured secrets and what add gives, for good", () => {
    const redaction = makeGrowingRedaction(["configured-secret-1"])
    redaction.add(["added-token-0123456789"])
    for (let n = 0; n < recentKept * 2; n++) redaction.addRecent([proof(n)])
    const text = redaction.text("configured-secret-1 and added-token-0123456789")
    expect(text).not.toContain("configured-secret-1")
    expect(text).not.toContain("added-token-0123456789")
  })

  it("redacts a recent value, and forgets it once recentKept newer values came", () => {
    const redaction = makeGrowingRedaction([])
    redaction.addRecent([proof(0)])
    expect(redaction.reveals(`echo: ${proof(0)}`)).toBe(true)
    expect(redaction.text(`echo: ${proof(0)}`)).not.toContain(proof(0))
    for (let n = 1; n < recentKept; n++) redaction.addRecent([proof(n)])
    expect(redaction.reveals(proof(0))).toBe(true)
    redaction.addRecent([proof(recentKept)])
    expect(redaction.reveals(proof(0))).toBe(false)
    expect(redaction.reveals(proof(1))).toBe(true)
    expect(redaction.reveals(proof(recentKept))).toBe(true)
  })
})
