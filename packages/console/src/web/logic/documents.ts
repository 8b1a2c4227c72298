import type { StoredDocument } from './api';

export type DeployedFilter = 'all' | 'deployed' | 'undeployed';

export interface DocumentFilter {
  search: string;
  solution: string;
  deployed: DeployedFilter;
}

/** The solution of a `urn:<kind>:<solution>:<name>` id; '' when the id has no such part. */
export function solutionOf(id: string): string {
  return id.split(':')[2] ?? '';
}

/** The solutions that occur among the documents, sorted, for the filter's choices. */
export function solutionsOf(documents: readonly StoredDocument[]): string[] {
  return [...new Set(documents.map((d) => solutionOf(d.id.identifier)))].filter((s) => s !== '').sort();
}

/** Documents that pass the filter: the search matches id, name or description, ignoring case. */
export function filterDocuments(documents: readonly StoredDocument[], filter: DocumentFilter): StoredDocument[] {
  const needle = filter.search.trim().toLowerCase();
  return documents.filter((d) => {
    if (filter.solution !== '' && solutionOf(d.id.identifier) !== filter.solution) return false;
    if (filter.deployed === 'deployed' && !d.deployed) return false;
    if (filter.deployed === 'undeployed' && d.deployed) return false;
    if (needle === '') return true;
    return [d.id.identifier, d.name ?? '', d.description ?? ''].some((field) => field.toLowerCase().includes(needle));
  });
}

/** Size of the XML as stored, in UTF-8 bytes, for people: `812 B`, `4.2 KiB`, `1.1 MiB`. */
export function formatSize(xml: string): string {
  const bytes = new TextEncoder().encode(xml).length;
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** The id a document declares on its root element, to tell whether an edit renamed it. */
export function declaredId(xml: string): string | undefined {
  const root = /<(?:[A-Za-z_][\w.-]*:)?(?:policy|timer)\b[^>]*?\bid\s*=\s*(["'])(.*?)\1/s.exec(xml);
  return root?.[2];
}

/** The cron a timer's root element declares, as typed (for its reading while the timer is edited). */
export function declaredCron(xml: string): string | undefined {
  const root = /<(?:[A-Za-z_][\w.-]*:)?timer\b[^>]*?\bcron\s*=\s*(["'])(.*?)\1/s.exec(xml);
  return root?.[2];
}

/** A starting point for a new document of the kind: valid as it is, to be renamed and changed. */
export function documentTemplate(kind: 'policy' | 'timer'): string {
  if (kind === 'timer') {
    return `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer"
       xmlns:parameter="http://www.mydata-control.de/4.0/parameter"
       id="urn:timer:acme:nightly" cron="0 0 2 * * ?" description="nightly event">
  <event action="urn:action:acme:nightly"/>
</timer>
`;
  }
  return `<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage"
        xmlns:event="http://www.mydata-control.de/4.0/event"
        xmlns:constant="http://www.mydata-control.de/4.0/constant"
        id="urn:policy:acme:new-policy" name="New policy">
  <mechanism event="urn:action:acme:show-employee">
    <if>
      <equals>
        <event:string eventParameter="user" jsonPathQuery="$.name.firstName" default=""/>
        <constant:string value="Mallory"/>
      </equals>
      <then><inhibit reason="Mallory is never shown"/></then>
    </if>
  </mechanism>
</policy>
`;
}
