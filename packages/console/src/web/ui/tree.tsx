import type { TreeNode } from '../logic/explanation';

/** The explanation tree as nested lists: every node readable without expanding anything. */
export function Tree({ node }: { node: TreeNode }) {
  return (
    <ul class="tree">
      <TreeItem node={node} />
    </ul>
  );
}

function TreeItem({ node }: { node: TreeNode }) {
  return (
    <li>
      <span class="label">{node.label}</span>
      {node.value !== undefined && <span class={`value ${node.tone ?? ''}`}>{node.value}</span>}
      {node.children.length > 0 && (
        <ul>
          {node.children.map((child, index) => (
            <TreeItem key={index} node={child} />
          ))}
        </ul>
      )}
    </li>
  );
}
