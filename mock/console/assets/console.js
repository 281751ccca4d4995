var v,xe,Qe,F,ae,Q,Se,Y,Te,ie,re,et,z=Symbol.for("pv"),ee={},te=[],tt=/^m(i|n|o|s|text|space)$/,ce=Array.isArray,_e=te.slice,O=Object.assign;function I(t){t&&t.parentNode&&t.remove()}function le(t,e,n){var s,r,o,i={},c=arguments.length;for(o in e)o=="key"?s=e[o]:o=="ref"&&typeof t!="function"?r=e[o]:i[o]=e[o];return c>2&&(i.children=c>3?_e.call(arguments,2):n),U(t,i,s,r,null)}function U(t,e,n,s,r){var o={type:t,props:e,key:n,ref:s,__k:null,__:null,__b:0,__e:null,__c:null,constructor:z,__v:r||++xe,__i:-1,__u:0};return!r&&v.vnode&&v.vnode(o),o}function ne(t){return t.children}function W(t,e){this.props=t,this.context=e,this.__g=0}function A(t,e){if(e==null)return t.__&&A(t.__,t.__i+1);for(var n;e<t.__k.length;e++)if((n=t.__k[e])&&n.__e)return n.__e;return typeof t.type!="function"||t.props.__P?null:A(t)}function nt(t){var e,n=t.__v,s=n.__e,r=[],o=[],i=t.__P;i&&((e=O({constructor:z},n)).__v=n.__v+1,v.vnode&&v.vnode(e),ue(i,e,n,t.__n,i.namespaceURI,32&n.__u?[s]:null,r,s||A(n),32&n.__u,o),e.__v=n.__v,e.__.__k[e.__i]=e,Me(r,e,o),n.__=n.__e=null,e.__e!=s&&Ee(e))}function Ee(t){if((t=t.__)&&t.__c&&!t.props.__P)return t.__e=null,t.__k.some(function(e){return e&&(t.__e=e.__e)}),Ee(t)}function we(t){(8&t.__g||(t.__g|=8,F.push(t),Q++))&&ae==v.debounceRendering||((ae=v.debounceRendering)||queueMicrotask)(Pe)}function Pe(){try{for(var t,e=1;F.length;)F.length>e&&F.sort(Se),t=F.shift(),e=F.length,8&t.__g&&nt(t)}finally{(Q=F.length)&&(ae||queueMicrotask)(Pe)}}function Le(t,e,n,s,r,o,i,c,l,f,_){var y,d,a,p,b,g,$=s.__k||te,m=e.length;for(l=ot(n,e,$,l,m),y=0;y<m;y++)(a=n.__k[y])!=null&&(d=~a.__i&&$[a.__i]||ee,a.__i=y,g=ue(t,a,d,r,o,i,c,l,f,_),p=a.__e,(d.ref!=a.ref||8&d.__u)&&(d.ref&&pe(d.ref,null,a,d),a.ref&&_.push(a.ref,a.__c||p,a)),b=b||p,4&a.__u?(l=He(a,l,t,!d.__v),d.__e&&(d.__e=null)):typeof a.type=="function"&&g!==void 0?l=g:p&&(l=p.nextSibling),a.__u&=-21);return n.__e=b,l}function ot(t,e,n,s,r){var o,i,c,l,f,_,y,d,a,p=n.length,b=p,g=0,$=0,m=t.__k=Array(r);for(o=0;o<r;o++)(i=e[o])!=null&&typeof i!="boolean"&&typeof i!="function"?(typeof i!="object"||i.constructor===String?i=m[o]=U(null,i):ce(i)?i=m[o]=U(ne,{children:i}):i.constructor===z&&i.__b?i=m[o]=U(i.type,i.props,i.key,i.ref,i.__v):m[o]=i,l=o+g,i.__=t,i.__b=t.__b+1,c=null,~(f=i.__i=st(i,n,l,b))&&(b--,(c=n[f])&&(c.__u|=2)),c&&c.__v?(i.__u|=16,f==l-1?g--:f==l+1?g++:f!=l&&(f>l?g--:g++,$=1)):(~f||(r>p?g--:r<p&&g++),typeof i.type!="function"&&(i.__u|=4))):m[o]=null;if($){for(_=[],y=[],o=0;o<r;o++)if((i=m[o])&&16&i.__u){for(g=0,d=_.length;g<d;)_[a=g+d>>1]<i.__i?g=a+1:d=a;_[g]=i.__i,y[o]=g+1}for(g=_.length;o--;)y[o]&&(y[o]==g?g--:m[o].__u|=4)}if(b)for(o=0;o<p;o++)!(c=n[o])||2&c.__u||(c.__e==s&&(s=A(c)),de(c,c));return s}function He(t,e,n,s){var r,o,i,c;if(typeof t.type=="function"){if(t.props.__P)return e;if(r=t.__k)for(o=0;o<r.length;o++)r[o]&&(r[o].__=t,e=He(r[o],e,n,!1));return e}for(e&&!e.parentNode&&(e=A(t))&&!e.parentNode&&(e=null),i=t.__e,c=e;c&&c.nodeType==8;)c=c.nextSibling;for(i!=c&&(!s&&n.moveBefore&&i.parentNode?n.moveBefore(i,e):n.insertBefore(i,e||null)),e=i;(e=e&&e.nextSibling)&&e.nodeType==8&&!e.data.startsWith("$s"););return e}function st(t,e,n,s){var r,o=t.key,i=t.type,c=e[n],l=c&&!(2&c.__u);if(c===null&&o==null||l&&o==c.key&&i==c.type)return n;if(s>(l?1:0)){for(r=n-1;r>=0;r--)if((c=e[r])&&!(2&c.__u)&&o==c.key&&i==c.type)return r;for(r=n+1;r<e.length;r++)if((c=e[r])&&!(2&c.__u)&&o==c.key&&i==c.type)return r}return-1}function Ce(t,e,n){n==null&&(n=""),e[0]=="-"?t.setProperty(e,n):t[e]=n}function X(t,e,n,s,r){var o,i;if(e=="style")if(typeof n=="string")t.style.cssText=n;else{if(typeof s=="string"&&(t.style.cssText=s=""),s)for(e in s)n&&e in n||Ce(t.style,e);if(n)for(e in n)s&&n[e]==s[e]||Ce(t.style,e,n[e])}else if(e[0]=="o"&&e[1]=="n")typeof n!="function"&&(n=null),typeof s!="function"&&(s=null),(t.__e||(t.__e={}))[e]=n,n&&s||(i=re[e]||(re[e]=at(e)),(t.__a||(t.__a={}))[e]=ie,o=e!=(e=e.replace(Te,"$1")),(e=e.slice(2))[0]<"a"&&(e=e.toLowerCase()),n?t.addEventListener(e,i,o):t.removeEventListener(e,i,o));else{if(r=="http://www.w3.org/2000/svg")e=e.replace(/xlink(H|:h)/,"h").replace(/sName$/,"s");else if(e!="width"&&e!="height"&&e!="href"&&e!="list"&&e!="form"&&e!="tabIndex"&&e!="download"&&e!="rowSpan"&&e!="colSpan"&&e!="role"&&e!="popover"&&e in t)try{return void(t[e]=n??"")}catch{}if(typeof n=="function")return;n==null||n===!1&&e[4]!="-"?t.removeAttribute(e):t.setAttribute(e,e=="popover"&&n==1?"":n)}}function at(t){return function(e){var n=this.__e;if(n){if(n=n[t],e[Y]==null)e[Y]=ie++;else if(e[Y]<this.__a[t])return;return n(v.event?v.event(e):e)}}}function ue(t,e,n,s,r,o,i,c,l,f){var _,y,d,a,p,b,g,$,m,k,h,E,M,q,H,K,T,N,S=e.type;if(e.constructor!==z)return null;128&n.__u&&(l=32&n.__u,_=n.__c.__z)&&(e.__u|=l,y=o=[],_.nodeType==8?c=Z(_,o):o.push(_),c=o[0]||c),(_=v.__b)&&_(e);e:if(typeof S=="function"){d=i.length;try{if($=e.props,m=(_=S.prototype)&&_.render,k=(_=S.contextType)&&s[_.__c],h=_?k?k.props.value:_.__:s,(a=n.__c)?(e.__c=a,2&a.__g&&(a.__g|=1)):(m?e.__c=a=new S($,h):(e.__c=a=new W($,h),a.constructor=S,a.render=it),k&&k.sub(a),a.state||(a.state={}),a.__n=s,a.__g|=8,a.__h=[],a.__k=[]),m&&(a.__s||(a.__s=a.state),S.getDerivedStateFromProps&&(a.__s==a.state&&(a.__s=O({},a.__s)),O(a.__s,S.getDerivedStateFromProps($,a.__s)))),p=a.props,b=a.state,a.__v=e,n.__c){if($!==p&&m&&!S.getDerivedStateFromProps&&a.componentWillReceiveProps&&a.componentWillReceiveProps($,h),e.__v==n.__v&&!(8&a.__g)||!(4&a.__g)&&a.shouldComponentUpdate&&a.shouldComponentUpdate($,a.__s,h)===!1){e.__v!=n.__v&&(a.props=$,a.state=a.__s,a.__g&=-9),e.__e=n.__e,e.__k=n.__k,e.__k.some(function(P){P&&(P.__=e)}),te.push.apply(a.__h,a.__k),a.__k=[],a.__h.length&&i.push(a),c=A(n);break e}a.componentWillUpdate&&a.componentWillUpdate($,a.__s,h),m&&a.componentDidUpdate&&a.__h.push(function(){a.componentDidUpdate(p,b,g)})}else m&&!S.getDerivedStateFromProps&&a.componentWillMount&&a.componentWillMount(),m&&a.componentDidMount&&a.__h.push(a.componentDidMount);a.context=h,a.props=$,a.__P=t,a.__g&=-5,E=v.__r,M=m?25:0;do a.__g&=-9,E&&E(e),_=a.render(a.props,a.state=a.__s,a.context);while(8&a.__g&&++M<25);m&&(te.push.apply(a.__h,a.__k),a.__k=[]),a.state=a.__s,a.getChildContext&&(s=O({},s,a.getChildContext())),m&&n.__c&&a.getSnapshotBeforeUpdate&&(g=a.getSnapshotBeforeUpdate(p,b)),q=_&&_.type===ne&&_.key==null?_.props.children:_,$.__P&&(_=c,r=(t=$.__P).namespaceURI,l=o=null,n.props&&n.props.__P!=t&&(n.__k.some(function(P){P&&de(P,P)}),n.__k=null),c=n.__k?A(n,0):null),c=Le(t,ce(q)?q:[q],e,n,s,r,o,i,c,l,f),$.__P&&(e.__e=null,c=_),e.__u&=-161,y&&y.some(I),a.__h.length&&i.push(a),1&a.__g&&(a.__g&=-4)}catch(P){if(i.length=d,e.__v=null,l||o)if(P&&P.then){if(e.__u|=128|l,o){for(~(T=o.indexOf(c||void 0))||(T=o.length);(N=o[T-1])&&N.nodeType==8;)T--;for(;T<o.length;T++)if(N=o[T])if(o[T]=null,H){if(N==K)break}else{if(N.nodeType!=8)break;N.data.startsWith("$s")&&(K=Z(H=N))}}if(!H){for(;c&&c.nodeType==8&&c.nextSibling;)c=c.nextSibling;H=c}(_=Z(H=e.__c.__z||(e.__c.__z=H)))?(e.__e=H,c=_):e.__e=c,c=c&&c.nextSibling}else o&&o.some(I);else e.__e=n.__e;e.__k||(e.__k=n.__k||[]),P&&P.then||Ne(e),v.__e(P,e,n)}}else c=e.__e=rt(n.__e,e,n,s,r,o,i,l,f,t);return(_=v.diffed)&&_(e),c}function Z(t,e){if(t&&t.nodeType==8&&t.data.startsWith("$s"))for(var n=1;t=t.nextSibling;){if(t.nodeType==8){if(t.data.startsWith("$s"))n++;else if(t.data.startsWith("/$s")&&!--n)return t}e&&e.push(t)}}function Ne(t){t&&(t.__c&&(t.__c.__g|=4),t.__k&&t.__k.some(Ne))}function Me(t,e,n){for(var s=0;s<n.length;)pe(n[s++],n[s++],n[s++]);v.__c&&v.__c(e,t),t.some(function(r){try{t=r.__h,r.__h=[],t.some(function(o){o.call(r)})}catch(o){v.__e(o,r.__v)}})}function rt(t,e,n,s,r,o,i,c,l,f){var _,y,d,a,p,b,g,$,m=n.props||ee,k=e.props,h=e.type;if(h=="svg"?r="http://www.w3.org/2000/svg":h=="math"?r="http://www.w3.org/1998/Math/MathML":r||(r="http://www.w3.org/1999/xhtml"),o){for(_=0;_<o.length;_++)if((p=o[_])&&(h?p.localName==h:p.nodeType==3)){t=p,o[_]=null;break}}if(!t){if($=f.ownerDocument||document,!h)return $.createTextNode(k);t=$.createElementNS(r,h,k.is?k:f),c&&(v.__m&&v.__m(e,o),c=!1),o=null}if(h){if(f=h=="template"&&t.content||t,o=h=="textarea"&&k.defaultValue!=null?null:o&&_e.call(f.childNodes),!c&&o)for(m={},_=0;_<t.attributes.length;_++)m[(p=t.attributes[_]).name]=p.value;for(_ in m)p=m[_],_=="dangerouslySetInnerHTML"?d=p:_=="children"||_ in k||_=="value"&&"defaultValue"in k||_=="checked"&&"defaultChecked"in k||X(t,_,null,p,r);for(_ in k)p=k[_],_=="children"?a=p:_=="dangerouslySetInnerHTML"?y=p:_=="value"?b=p:_=="checked"?g=p:c&&typeof p!="function"||m[_]===p||X(t,_,p,m[_],r);y?(c||d&&(y.__html==d.__html||y.__html==t.innerHTML)||(t.innerHTML=y.__html),e.__k=[]):(d&&(t.textContent=""),(h=="foreignObject"||r=="http://www.w3.org/1998/Math/MathML"&&tt.test(h))&&(r="http://www.w3.org/1999/xhtml"),Le(f,ce(a)?a:[a],e,n,s,r,o,i,o?o[0]:n.__k&&A(n,0),c,l),o&&o.some(I)),c&&h!="textarea"||(_="value",h=="progress"&&b==null?t.removeAttribute(_):b==null||b===t[_]&&(h!="progress"||b)||X(t,_,b,m[_],r),_="checked",g!=null&&g!=t[_]&&X(t,_,g,m[_],r))}else m===k||c&&t.data==k||(t.data=k);return t}function pe(t,e,n,s){try{typeof t=="function"?e?e.__x=t(e)||1:s&&(s=s.__c||s.__e)&&(e=s.__x)&&(s.__x=null,typeof e=="function"?e():t(null)):t.current=e}catch(r){v.__e(r,n)}}function de(t,e,n){var s,r,o,i;if(v.unmount&&v.unmount(t),!(s=t.ref)||s.current&&s.current!=t.__e||pe(s,null,e,t),s=t.__c){if(s.componentWillUnmount)try{s.componentWillUnmount()}catch(c){v.__e(c,e)}s.__P=s.__n=null}if(s=t.__k)for(i=0;i<s.length;i++)s[i]&&de(s[i],e,typeof t.type!="function"||n&&!t.props.__P);!n&&(s=t.__c)&&(s=s.__z)&&(r=Z(s,o=[]))&&(s==t.__e&&o.some(I),I(r),I(s)),n||I(t.__e),t.__e=t.__c=t.__=null}function it(t,e,n){return this.constructor(t,n)}function fe(t,e){var n,s,r,o;v.__&&v.__(t,e),e.nodeType==9&&(e=e.documentElement),s=(n=t&&32&t.__u)?null:e.__k,e.__k=U(ne,{children:[t]}),r=[],o=[],ue(e,e.__k,s||ee,ee,e.namespaceURI,s?null:e.firstChild?_e.call(e.childNodes):null,r,s?s.__e:e.firstChild,n,o),Me(r,e.__k,o),e.__k.props.children=null}v={__e:function(t,e,n,s){for(var r,o,i;e=e.__;)if((r=e.__c)&&!(1&r.__g)){r.__g|=4;try{if((i=(o=r.constructor)&&o.getDerivedStateFromError)&&r.setState(o.getDerivedStateFromError(t)),r.componentDidCatch&&(r.componentDidCatch(t,s||{}),i=1),i&&8&r.__g)return void(r.__g|=2)}catch(c){t=c}}throw Q=0,t}},xe=0,Qe=function(t){return t!=null&&t.constructor===z},W.prototype.setState=function(t,e){var n=this.__s;n&&n!=this.state||(n=this.__s=O({},this.state)),typeof t=="function"&&(t=t(O({},n),this.props)),t&&(O(n,t),this.__v&&(e&&this.__k.push(e),we(this)))},W.prototype.forceUpdate=function(t){this.__v&&(this.__g|=4,t&&this.__h.push(t),we(this))},W.prototype.render=ne,F=[],Q=0,Se=function(t,e){return t.__v.__b-e.__v.__b},Y=Symbol(),Te=/(PointerCapture)$|Capture$/i,ie=0,re={},et=0;var V,C,he,Fe,me=Object.is,oe=0,ze=[],ye=[],w=v,Ae=w.__b,De=w.__r,Ie=w.diffed,Oe=w.__c,Re=w.unmount,qe=w.__;function $e(t,e){w.__h&&w.__h(C,t,oe||e),oe=0;var n=C.__H||(C.__H={__:[],__h:[]});return t>=n.__.length&&n.__.push({}),n.__[t]}function x(t){return oe=1,ct(Ve,t)}function ct(t,e,n){var s=$e(V++,2);if(s.t=t,!s.__c&&(s.__=[n?n(e):Ve(void 0,e),function(o){var i=(s.__N||s.__)[0],c=s.t(i,o);me(i,c)||(s.__N=[c,s.__[1]],s.__c.setState({}))}],s.__c=C,!C.__f)){C.__f=!0;var r=C.shouldComponentUpdate;C.shouldComponentUpdate=function(o,i,c){var l=this.__H;if(!l)return!0;var f=!1,_=this.props!=o;if(l.__.some(function(d){d.__N&&(f=!0,me(d.__[0],d.__N[0])||(_=!0))}),r){var y=r.call(this,o,i,c);return f?y||_:y}return!f||_}}return s.__}function R(t,e){var n=$e(V++,3);!w.__s&&je(n.__H,e)&&(n.__P=!0,n.__=t,n.u=e,C.__H.__h.push(n))}function se(t){return oe=5,ve(function(){return{current:t}},[])}function ve(t,e){var n=$e(V++,7);return je(n.__H,e)&&(n.__=t(),n.__H=e),n.__}function _t(){var t;do{for(;t=ye.shift();)try{j(t)}catch(n){w.__e(n,{__:(t=t.__P)&&t.__v})}for(;t=ze.shift();){var e=t.__H;if(t.__P&&e)try{e.__h.some(j),e.__h.some(ge),e.__h=[]}catch(n){e.__h=[],w.__e(n,t.__v)}}}while(ye.length)}w.__b=function(t){C=null,Ae&&Ae(t)},w.__=function(t,e){t&&e.__k&&e.__k.__m&&(t.__m=e.__k.__m),qe&&qe(t,e)},w.__r=function(t){De&&De(t),V=0;var e=(C=t.__c).__H;e&&(he==C?C.__h=[]:(e.__h.some(j),e.__h.some(ge),V=0),e.__h=[],e.__.some(function(n){n.__N&&(n.__=n.__N),n.u=n.__N=void 0})),he=C},w.diffed=function(t){Ie&&Ie(t);var e=t.__c;e&&e.__H&&(e.__H.__h.length&&We(ze.push(e)),e.__H.__.some(function(n){n.u&&(n.__H=n.u)})),he=C=null},w.__c=function(t,e){e.some(function(n){try{n.__h.some(j),n.__h=n.__h.filter(function(s){return!s.__||ge(s)})}catch(s){n.__h=[function(){throw s}]}}),Oe&&Oe(t,e)},w.unmount=function(t){Re&&Re(t);var e,n,s=t.__c;s&&s.__H&&(s.__H.__.some(function(r){try{if(r.__P&&r.__c){if(n===void 0){for(n=t.__;n&&(!n.__c||!n.__c.__P);)n=n.__;n=n&&n.__c}r.__P=n,We(ye.push(r))}else j(r)}catch(o){e=o}}),s.__H=void 0,e&&w.__e(e,s.__v))};var Ue=typeof requestAnimationFrame=="function";function lt(t){var e,n=function(){clearTimeout(s),Ue&&cancelAnimationFrame(e),setTimeout(t)},s=setTimeout(n,35);Ue&&(e=requestAnimationFrame(n))}function We(t){t!=1&&Fe==w.requestAnimationFrame||((Fe=w.requestAnimationFrame)||lt)(_t)}function j(t){var e=C,n=t.__c;typeof n=="function"&&(t.__c=void 0,n()),C=e}function ge(t){var e=C;t.__c=t.__(),C=e}function je(t,e){return!t||t.length!=e.length||e.some(function(n,s){return!me(n,t[s])})}function Ve(t,e){return typeof e=="function"?e(t):e}var Je=function(t,e,n,s){var r;e[0]=0;for(var o=1;o<e.length;o++){var i=e[o++],c=e[o]?(e[0]|=i?1:2,n[e[o++]]):e[++o];i===3?s[0]=c:i===4?s[1]=Object.assign(s[1]||{},c):i===5?(s[1]=s[1]||{})[e[++o]]=c:i===6?s[1][e[++o]]+=c+"":i?(r=t.apply(c,Je(t,c,n,["",null])),s.push(r),c[0]?e[0]|=2:(e[o-2]=0,e[o]=r)):s.push(c)}return s},Be=new Map;function Ge(t){var e=Be.get(this);return e||(e=new Map,Be.set(this,e)),(e=Je(this,e.get(t)||(e.set(t,e=(function(n){for(var s,r,o=1,i="",c="",l=[0],f=function(d){o===1&&(d||(i=i.replace(/^\s*\n\s*|\s*\n\s*$/g,"")))?l.push(0,d,i):o===3&&(d||i)?(l.push(3,d,i),o=2):o===2&&i==="..."&&d?l.push(4,d,0):o===2&&i&&!d?l.push(5,0,!0,i):o>=5&&((i||!d&&o===5)&&(l.push(o,0,i,r),o=6),d&&(l.push(o,d,0,r),o=6)),i=""},_=0;_<n.length;_++){_&&(o===1&&f(),f(_));for(var y=0;y<n[_].length;y++)s=n[_][y],o===1?s==="<"?(f(),l=[l],o=3):i+=s:o===4?i==="--"&&s===">"?(o=1,i=""):i=s+i[0]:c?s===c?c="":i+=s:s==='"'||s==="'"?c=s:s===">"?(f(),o=1):o&&(s==="="?(o=5,r=i,i=""):s==="/"&&(o<5||n[_][y+1]===">")?(f(),o===3&&(l=l[0]),o=l,(l=l[0]).push(2,0,o),o=0):s===" "||s==="	"||s===`
`||s==="\r"?(f(),o=2):i+=s),o===3&&i==="!--"&&(o=4,l=l[0])}return f(),l})(t)),e),arguments,[])).length>1?e:e[0]}var u=Ge.bind(le);var be=1e4,B=30,Ke=8;async function L(t,e){let n=await fetch(`/__admin${t}`,{method:e?.method??"GET",headers:e?.body===void 0?{}:{"content-type":"application/json"},body:e?.body===void 0?void 0:JSON.stringify(e.body)}),s=await n.text(),r=s?JSON.parse(s):null;if(!n.ok)throw new Error(r?.error??`${n.status}`);return r}var Xe=t=>t===0?"s0":t<300?"s2":t<400?"s3":t<500?"s4":"s5",ke=t=>t?t.slice(0,8):"-",Ye=t=>t.slice(11,23),J=t=>`'${t.replace(/'/g,"'\\''")}'`;function ut(t,e){let{request:n}=t,s=[`curl -i -X ${n.method} ${J(`${e}${n.url}`)}`];for(let[r,o]of Object.entries(n.headers))r==="x-api-key"||r==="authorization"?s.push(`-H ${J("x-api-key: <API_KEY>")}`):["x-shop-id","content-type","idempotency-key","prefer"].includes(r)&&s.push(`-H ${J(`${r}: ${o}`)}`);return t.via==="mcp"&&s.push(`-H ${J("x-api-key: <API_KEY>")}`),n.body!==null&&n.body!==void 0&&s.push(`--data-raw ${J(typeof n.body=="string"?n.body:JSON.stringify(n.body))}`),s.join(` \\
  `)}function pt(t,e){return!(e.shop&&!(t.shop??"").toLowerCase().includes(e.shop.toLowerCase())||e.key&&!(t.key??"").includes(e.key)||e.status&&!String(t.status).startsWith(e.status.replace(/x+$/i,""))||e.operation&&!`${t.operationId??""} ${t.method} ${t.path}`.toLowerCase().includes(e.operation.toLowerCase()))}function dt(){let t=se([]),[e,n]=x(0),[s,r]=x(0),[o,i]=x(!1),[c,l]=x(),[f,_]=x({shop:"",key:"",status:"",operation:""}),[y,d]=x(),[a,p]=x("faults"),[b,g]=x("");R(()=>{let h=new EventSource("/__admin/console/events"),E=!1;return h.onopen=()=>i(!0),h.onerror=()=>i(!1),h.addEventListener("exchanges",M=>{let{exchanges:q,dropped:H,backlog:K}=JSON.parse(M.data);K&&(t.current=[],r(0));let T=t.current,N=T.length?Number(T[T.length-1].id):0;for(let S of q)Number(S.id)>N&&T.push(S);T.length>be&&(r(S=>S+T.length-be),t.current=T.slice(T.length-be)),H&&r(S=>S+H),E||(E=!0,requestAnimationFrame(()=>{E=!1,n(S=>S+1)}))}),h.addEventListener("state",M=>l(JSON.parse(M.data))),()=>h.close()},[]);let $=ve(()=>f.shop||f.key||f.status||f.operation?t.current.filter(E=>pt(E,f)):t.current,[e,f]),m=async(h,E)=>{try{await E(),g(h),l(await(async()=>({...c,...await L("/clock"),faults:(await L("/faults")).faults}))())}catch(M){g(`${h} failed: ${M.message}`)}},k=()=>m("World reset",async()=>{await L("/reset",{method:"POST",body:{}}),t.current=[],d(void 0),n(h=>h+1)});return u`
    <header class="top">
      <h1>shoptwin console</h1>
      <span class=${`conn ${o?"on":"off"}`} role="status">${o?"live":"disconnected"}</span>
      <span class="meta">${c?`seed ${c.seed} \xB7 today ${c.today} \xB7 rate limit ${c.rateLimit?"on":"off"} \xB7 tracing ${c.tracing?"on":"off"}`:""}</span>
      <${ft} live=${c} act=${m} />
      <button type="button" class="danger" onClick=${k}>Reset world</button>
    </header>
    <p class="notice" role="status" aria-live="polite">${b}</p>
    <main class="layout">
      <section class="exchanges" aria-labelledby="exchanges-title">
        <div class="section-head">
          <h2 id="exchanges-title">Exchanges</h2>
          <span class="count">${$.length} shown · ${t.current.length} kept${s?` \xB7 ${s} older dropped`:""}</span>
        </div>
        <${ht} filter=${f} setFilter=${_} />
        <${mt} rows=${$} selected=${y} select=${d} version=${e} />
        ${$.length===0?u`<p class="empty">${t.current.length?"No exchange matches the filters.":"No exchange yet: send a request to the twin and it appears here."}</p>`:""}
      </section>
      <section class="detail" aria-labelledby="detail-title">
        <h2 id="detail-title">Trace</h2>
        <${yt} id=${y} />
      </section>
    </main>
    <section class="panels" aria-label="Controls and state">
      <div class="tabs" role="tablist" aria-label="Panels">
        ${[["faults","Faults"],["limits","Rate limits & idempotency"],["state","Area state"],["connector","Connector"]].map(([h,E])=>u`<button type="button" role="tab" id=${`tab-${h}`} aria-controls="panel" aria-selected=${a===h} class=${a===h?"tab active":"tab"} onClick=${()=>p(h)}>${E}</button>`)}
      </div>
      <div class="panel" id="panel" role="tabpanel" tabindex="0" aria-labelledby=${`tab-${a}`}>
        ${a==="faults"?u`<${gt} live=${c} act=${m} />`:a==="limits"?u`<${$t} version=${e} />`:a==="state"?u`<${vt} />`:u`<${bt} version=${e} />`}
      </div>
    </section>
  `}function ft({live:t,act:e}){let[n,s]=x(""),r=(o,i)=>e(`Clock advanced ${i}`,()=>L("/clock",{method:"POST",body:{advance_ms:o}}));return u`
    <div class="clock" role="group" aria-label="Mock clock">
      <span class="now"><span class="label">Clock</span> <time>${t?t.now.replace("T"," ").replace("Z"," UTC"):"\u2026"}</time> <span class=${t?.frozen?"pill frozen":"pill running"}>${t?.frozen?"frozen":"running"}</span></span>
      ${t?.frozen?u`<button type="button" onClick=${()=>e("Clock running",()=>L("/clock",{method:"POST",body:{now:t.now,running:!0}}))}>Run</button>`:u`<button type="button" onClick=${()=>e("Clock frozen",()=>L("/clock",{method:"POST",body:{now:t?.now}}))}>Freeze</button>`}
      <button type="button" onClick=${()=>r(1e3,"1 s")}>+1 s</button>
      <button type="button" onClick=${()=>r(6e4,"1 min")}>+1 min</button>
      <button type="button" onClick=${()=>r(36e5,"1 h")}>+1 h</button>
      <button type="button" onClick=${()=>r(864e5,"1 day")}>+1 day</button>
      <form
        class="set"
        onSubmit=${o=>{o.preventDefault(),n&&e(`Clock set to ${n}`,()=>L("/clock",{method:"POST",body:{now:new Date(`${n}Z`).toISOString()}}))}}
      >
        <label for="clock-at">Set (UTC)</label>
        <input id="clock-at" type="datetime-local" step="1" value=${n} onInput=${o=>s(o.target.value)} />
        <button type="submit">Set</button>
      </form>
    </div>
  `}function ht({filter:t,setFilter:e}){let n=(s,r,o)=>u`
    <label class="filter">
      <span>${r}</span>
      <input type="search" name=${s} placeholder=${o} value=${t[s]} onInput=${i=>e({...t,[s]:i.target.value.trim()})} />
    </label>
  `;return u`<div class="filters">${n("shop","Shop","shop id")}${n("key","Key","key_\u2026 id")}${n("status","Status","4xx, 429\u2026")}${n("operation","Operation","operationId or path")}</div>`}function mt({rows:t,selected:e,select:n}){let s=se(null),[r,o]=x(0),[i,c]=x(480),[l,f]=x(!0);R(()=>{let a=s.current,p=()=>c(a.clientHeight);p();let b=new ResizeObserver(p);return b.observe(a),()=>b.disconnect()},[]),R(()=>{l&&s.current&&(s.current.scrollTop=s.current.scrollHeight)});let _=Math.max(0,Math.floor(r/B)-Ke),y=Math.min(t.length,Math.ceil((r+i)/B)+Ke),d=t.slice(_,y);return u`
    <div class="list-head" aria-hidden="true"><span>#</span><span>time</span><span>request</span><span>status</span><span>operation</span><span>key</span><span>shop</span><span>ms</span></div>
    <div
      class="list"
      ref=${s}
      tabindex="0"
      aria-label="Exchanges, newest last"
      onScroll=${a=>{let p=a.target;o(p.scrollTop),f(p.scrollTop+p.clientHeight>=p.scrollHeight-B)}}
    >
      <ol class="rows" style=${{height:`${t.length*B}px`}}>
        ${d.map((a,p)=>u`
            <li key=${a.id} style=${{transform:`translateY(${(_+p)*B}px)`}}>
              <button type="button" class=${a.id===e?"row selected":"row"} aria-pressed=${a.id===e} onClick=${()=>n(a.id)}>
                <span class="id">${a.id}</span>
                <span class="time">${Ye(a.time)}</span>
                <span class="req"><b>${a.method}</b> ${a.path}${a.query}</span>
                <span class=${`status ${Xe(a.status)}`}>${a.status||"drop"}</span>
                <span class="op">${a.operationId??"no operation"}${a.via==="mcp"?" (MCP)":""}</span>
                <span class="key">${a.key??"-"}</span>
                <span class="shop" title=${a.shop??""}>${ke(a.shop)}</span>
                <span class="ms">${a.durationMs.toFixed(1)}</span>
              </button>
            </li>
          `)}
      </ol>
    </div>
  `}function D({title:t,children:e}){return u`<div class="block"><h3>${t}</h3>${e}</div>`}var G=t=>typeof t=="string"?t:JSON.stringify(t,null,2);function yt({id:t}){let[e,n]=x(),[s,r]=x(""),[o,i]=x(!1);if(R(()=>{n(void 0),r(""),i(!1),t&&L(`/traces/${t}`).then(n,l=>r(l.message))},[t]),!t)return u`<p class="empty">Click an exchange to see why the twin answered as it did.</p>`;if(s)return u`<p class="empty">${s}</p>`;if(!e)return u`<p class="empty">Loading trace ${t}…</p>`;let c=ut(e,location.origin);return u`
    <div class="trace">
      <p class="trace-title"><span class=${`status ${Xe(e.status)}`}>${e.status||"drop"}</span> <b>${e.method}</b> ${e.path}${e.query} <span class="muted">trace ${e.id} · ${e.operationId??"no operation"} · ${e.time}</span></p>
      <${D} title="Decisions">
        <ol class="decisions">
          ${e.decisions.map(l=>u`
              <li class=${`decision ${l.outcome}`}>
                <span class="step">${l.step}</span>
                <span class="outcome">${l.outcome}</span>
                <span class="summary">${l.summary}${Array.isArray(l.detail?.failures)?u`<ul class="failures">${l.detail.failures.map(f=>u`<li>${f}</li>`)}</ul>`:""}</span>
                <span class="spec">spec: ${l.spec}</span>
              </li>
            `)}
        </ol>
      <//>
      <${D} title="Replay">
        <pre class="code">${c}</pre>
        <button type="button" onClick=${()=>navigator.clipboard?.writeText(c).then(()=>i(!0))}>${o?"Copied":"Copy curl"}</button>
      <//>
      <div class="two">
        <${D} title="Request"><pre class="code">${G(e.request.headers)}</pre><pre class="code">${G(e.request.body)}</pre><//>
        <${D} title="Answer"><pre class="code">${G(e.response.headers)}</pre><pre class="code">${G(e.response.body)}</pre><//>
      </div>
    </div>
  `}function gt({live:t,act:e}){let[n,s]=x({route:"*",status:"503",message:"",latency_ms:"",count:"1"}),r=c=>l=>s({...n,[c]:l.target.value}),o=c=>{c.preventDefault();let l={route:n.route||"*",count:Number(n.count)||1};n.status&&(l.status=Number(n.status)),n.message&&(l.message=n.message),n.latency_ms&&(l.latency_ms=Number(n.latency_ms)),e("Fault added",()=>L("/faults",{method:"POST",body:l}))},i=t?.faults??[];return u`
    <form class="fault-form" onSubmit=${o}>
      <label>Route <input name="route" value=${n.route} onInput=${r("route")} placeholder="operationId, permission, path or *" /></label>
      <label>Status <input name="status" inputmode="numeric" value=${n.status} onInput=${r("status")} /></label>
      <label>Message <input name="message" value=${n.message} onInput=${r("message")} placeholder="Injected fault: 503" /></label>
      <label>Latency ms <input name="latency_ms" inputmode="numeric" value=${n.latency_ms} onInput=${r("latency_ms")} /></label>
      <label>Count <input name="count" inputmode="numeric" value=${n.count} onInput=${r("count")} /></label>
      <button type="submit">Add fault</button>
    </form>
    ${i.length?u`<table>
          <caption>Faults waiting for their next matching requests</caption>
          <thead><tr><th scope="col">id</th><th scope="col">route</th><th scope="col">status</th><th scope="col">latency</th><th scope="col">message</th><th scope="col">remaining</th><th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead>
          <tbody>
            ${i.map(c=>u`<tr>
                <td>${c.id}</td><td>${c.route}</td><td>${c.status??"-"}</td><td>${c.latency_ms??"-"}</td><td>${c.message??""}</td><td>${c.remaining}</td>
                <td><button type="button" class="danger" aria-label=${`Remove fault ${c.id}`} onClick=${()=>e(`Fault ${c.id} removed`,()=>L(`/faults/${c.id}`,{method:"DELETE"}))}>Remove</button></td>
              </tr>`)}
          </tbody>
        </table>`:u`<p class="empty">No fault injected.</p>`}
  `}function Ze(t,e){let[n,s]=x(),r=se(0);return R(()=>{let o=Date.now();n!==void 0&&o-r.current<2e3||(r.current=o,L(t).then(s,()=>{}))},[e,t]),n}function $t({version:t}){let e=Ze("/console/limits",t);return e?u`
    <div class="two">
      <${D} title=${`Rate counters per key and shop${e.rateLimit?"":" (rate limit off)"}`}>
        ${e.rate?.length?u`<table><thead><tr><th scope="col">key</th><th scope="col">shop</th><th scope="col">this second</th><th scope="col">window from</th><th scope="col">today</th></tr></thead>
              <tbody>${e.rate.map(n=>u`<tr><td>${n.key}</td><td title=${n.shop}>${ke(n.shop)}</td><td>${n.secondCount}/${n.perSecond}</td><td>${Ye(n.windowStart)}</td><td>${n.dayCount.toLocaleString("en")}/${n.perDay.toLocaleString("en")}</td></tr>`)}</tbody></table>`:u`<p class="empty">No counter yet.</p>`}
      <//>
      <${D} title="Idempotency records per shop and key">
        ${e.idempotency?.length?u`<table><thead><tr><th scope="col">shop</th><th scope="col">key</th><th scope="col">status</th><th scope="col">answer</th><th scope="col">trace</th><th scope="col">expires</th></tr></thead>
              <tbody>${e.idempotency.map(n=>u`<tr><td title=${n.shop}>${ke(n.shop)}</td><td>${n.key}</td><td>${n.status}</td><td>${n.responseStatus??"-"}</td><td>${n.trace??"-"}</td><td>${n.expiresAt??"-"}</td></tr>`)}</tbody></table>`:u`<p class="empty">No idempotency record.</p>`}
      <//>
    </div>
  `:u`<p class="empty">Loading…</p>`}function vt(){let[t,e]=x(),n=()=>L("/console/areas").then(e,()=>{});return R(()=>{n()},[]),t?u`
    <button type="button" onClick=${n}>Refresh</button>
    ${t.areas.length?"":u`<p class="empty">No area state made yet: an area's state is made on its first request.</p>`}
    ${t.areas.map(s=>u`<details class="area"><summary>${s.area}</summary><pre class="code">${G(s.state)}</pre></details>`)}
  `:u`<p class="empty">Loading…</p>`}function bt({version:t}){let e=Ze("/console/connector",t);return e?u`
    <div class="two">
      <${D} title="Connections">
        ${e.connections.length?u`<table><thead><tr><th scope="col">connection</th><th scope="col">client</th><th scope="col">shops</th><th scope="col">tools</th><th scope="col">last used</th><th scope="col">revoked</th></tr></thead>
              <tbody>${e.connections.map(n=>u`<tr><td>${n.connection_id}</td><td>${n.client_name}</td><td>${n.shops.length}</td><td>${n.tools.length}</td><td>${n.last_used_at??"-"}</td><td>${n.revoked_at??"-"}</td></tr>`)}</tbody></table>`:u`<p class="empty">No connection: an assistant connects through /oauth/authorize.</p>`}
      <//>
      <${D} title="Activity (newest first)">
        ${e.activity.length?u`<table><thead><tr><th scope="col">time</th><th scope="col">actor</th><th scope="col">operation</th><th scope="col">status</th></tr></thead>
              <tbody>${e.activity.slice(0,100).map(n=>u`<tr><td>${n.time}</td><td>${n.actor.kind==="connector"?n.actor.client_name:n.actor.key_id}</td><td>${n.tool??n.operation_id}</td><td>${n.status}</td></tr>`)}</tbody></table>`:u`<p class="empty">No activity.</p>`}
      <//>
    </div>
  `:u`<p class="empty">Loading…</p>`}fe(u`<${dt} />`,document.getElementById("app"));export{be as MAX_ROWS,ut as curlOf};
