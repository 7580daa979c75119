/** ImageFields: an image node's Asset (one of the workspace's images and SVGs, or one uploaded here) or the Data path
 * that names one, and its Width and Height in CSS pixels. */
import { useState } from "react";
import { useUpload } from "../../../api/upload";
import { UploadStatus } from "../../../components/UploadStatus";
import type { Problem } from "../JsonEditor";
import { useImageAssets } from "../api";
import type { Node } from "../draft/nodes";
import { withPath } from "../draft/values";
import { PathField, problemAt, SelectField, TextField } from "./fields";

type Image = Extract<Node, { type: "image" }>;

interface Props {
  node: Image;
  onChange: (node: Node, field: string) => void;
  problems: Problem[];
  paths: string[];
}

const sameNumber = (text: string) => (text.trim() === "" ? "" : String(Number(text)));

/** size answers the node with a dimension set from its field, or without it when the field is empty. */
function size(node: Image, field: "width" | "height", text: string): Image {
  const { [field]: _, ...rest } = node;
  return text.trim() === "" ? rest : { ...rest, [field]: Number(text) };
}

/** ImageFields edits an image node. */
export function ImageFields({ node, onChange, problems, paths }: Props) {
  const assets = useImageAssets();
  const [progress, setProgress] = useState<number | null>(null);
  const upload = useUpload(setProgress);
  const literal = typeof node.assetId === "string" ? node.assetId : "";
  const reference = typeof node.assetId === "object" && "path" in node.assetId ? node.assetId : null;
  const known = assets.images.some((a) => a.id === literal);
  const options: [string, string][] = [
    ["", assets.images.length ? "Choose an image" : "No image uploaded yet"],
    ...assets.images.map((a): [string, string] => [a.id, a.filename]),
    // An id that is not (or no longer) an image of the workspace stays visible, so that its problem can be seen.
    ...(literal && !known ? [[literal, literal] as [string, string]] : []),
  ];
  const assetError = problemAt(problems, "/assetId");
  return (
    <>
      <SelectField label="Asset" value={literal} options={options} error={reference ? undefined : assetError} onChange={(id) => onChange({ ...node, assetId: id }, "assetId")} />
      <label>
        Upload an image
        <input
          type="file"
          accept="image/png,image/jpeg,image/svg+xml"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) upload.mutate(file, { onSuccess: (a) => onChange({ ...node, assetId: a.id }, "assetId") });
            e.currentTarget.value = "";
          }}
        />
      </label>
      <UploadStatus upload={upload} progress={progress} />
      <PathField
        label="Data path"
        path={reference?.path}
        paths={paths}
        hint="Or the path of an asset id in the data."
        error={reference ? assetError : undefined}
        onChange={(path) => onChange({ ...node, assetId: path === "" ? "" : (withPath(path, node.assetId) as Image["assetId"]) }, "assetPath")}
      />
      <div className="grid">
        <TextField label="Width" type="number" value={node.width?.toString() ?? ""} normalize={sameNumber} hint="CSS px" error={problemAt(problems, "/width")} onChange={(v) => onChange(size(node, "width", v), "width")} />
        <TextField label="Height" type="number" value={node.height?.toString() ?? ""} normalize={sameNumber} hint="CSS px" error={problemAt(problems, "/height")} onChange={(v) => onChange(size(node, "height", v), "height")} />
      </div>
    </>
  );
}
