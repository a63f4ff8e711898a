// What a step run through scripts/runner.mjs said in its annotations.
interface Annotated {
  annotations: { level: string; message: string }[]
}

export function warnings(step: Annotated): string[] {
  return step.annotations.filter(a => a.level === 'warning').map(a => a.message)
}
