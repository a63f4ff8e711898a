// A value asked for at most once, and only when first needed (the remote's tips: a network call).

export function once<T>(f: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined
  return () => (made ??= f())
}
