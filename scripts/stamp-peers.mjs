// Loaded with `node --import` before Next by the launcher: every request the app's server takes,
// the first one included, carries the address it came from (lib/auth/peer-stamp.mjs).
import { installPeerStamp } from "../lib/auth/peer-stamp.mjs";

installPeerStamp();
