import { runShard } from "../helpers/shard.ts";

await runShard(9);
