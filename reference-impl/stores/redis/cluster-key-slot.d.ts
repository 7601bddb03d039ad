/** Types of cluster-key-slot (ioredis's own slot function, which ships none): the Redis Cluster hash slot of a key, hash tags honoured. */
declare module 'cluster-key-slot' {
  function generate(key: string): number;
  export default generate;
}
