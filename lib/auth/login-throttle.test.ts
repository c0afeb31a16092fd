import { describe, expect, it } from "vitest";
import { LoginThrottle } from "./login-throttle";

function setup() {
  let now = 0;
  const throttle = new LoginThrottle({ free: 3, maxWaitMs: 8_000, forgetAfterMs: 60_000 }, () => now);
  return { throttle, tick: (ms: number) => (now += ms) };
}

describe("LoginThrottle", () => {
  it("lets a few failures through, then makes each wait twice as long, up to the limit", () => {
    const { throttle, tick } = setup();
    for (let i = 0; i < 3; i++) expect(throttle.begin("a")).toBe(0);
    expect(throttle.begin("a")).toBe(0); // the 4th failure sets the first wait
    expect(throttle.begin("a")).toBe(1000);
    tick(1000);
    expect(throttle.begin("a")).toBe(0);
    expect(throttle.begin("a")).toBe(2000);
    tick(2000);
    throttle.begin("a");
    tick(4000);
    throttle.begin("a");
    expect(throttle.begin("a")).toBe(8000);
    tick(8000);
    throttle.begin("a");
    expect(throttle.begin("a")).toBe(8000); // capped
    expect(throttle.begin("b")).toBe(0); // another client is not held up
  });

  it("counts parallel attempts before their answers, and forgets after a success", () => {
    const { throttle } = setup();
    const waits = Array.from({ length: 6 }, () => throttle.begin("a"));
    expect(waits.filter((w) => w === 0)).toHaveLength(4);
    const b = setup().throttle;
    for (let i = 0; i < 3; i++) b.begin("a");
    b.succeeded("a");
    for (let i = 0; i < 4; i++) expect(b.begin("a")).toBe(0);
  });

  it("never holds up a client for another's failures, however many", () => {
    const { throttle } = setup();
    for (let i = 0; i < 500; i++) throttle.begin(i % 2 ? "attacker" : `attacker ${i}`);
    expect(throttle.begin("attacker")).toBeGreaterThan(0);
    expect(throttle.begin("admin")).toBe(0);
    throttle.succeeded("admin");
    expect(throttle.begin("admin")).toBe(0);
  });

  it("forgets old failures", () => {
    const { throttle, tick } = setup();
    for (let i = 0; i < 5; i++) throttle.begin("a");
    expect(throttle.begin("a")).toBeGreaterThan(0);
    tick(61_000 + 2_000);
    for (let i = 0; i < 4; i++) expect(throttle.begin("a")).toBe(0);
  });
});
